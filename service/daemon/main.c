/* main.c - the rookery command: serve, mail-in, backup, migrate, copy, --help, --version. */
#include "core/app.h"
#include "core/group_commit.h"
#include "core/limits.h"
#include "core/links.h"
#include "core/log.h"
#include "core/readers.h"
#include "core/versions.h"
#include "daemon/control_socket.h"
#include "daemon/copy.h"
#include "daemon/routes.h"
#include "daemon/sweeper.h"
#include "db.h"
#include "game/game.h"
#include "game/view_cache.h"
#include "pipeline/pipeline.h"
#include "http/http.h"
#include "live/events.h"
#include "live/follow.h"
#include "mail_in/mail_in.h"
#include "mail_in/mail_parse.h"
#include "mail_in/mail_socket.h"
#include "mail_out/mail.h"
#include "mail_out/mail_compose.h"
#include "mail_out/outbox.h"
#include "pages/tmpl.h"
#include "xalloc.h"
#include "core/text.h"

#include <curl/curl.h>
#include <errno.h>
#include <libgen.h>
#include <getopt.h>
#include <grp.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#define DEFAULT_DB "var/rookery.db"
/* Where a daemon on PostgreSQL keeps its sockets and its lock when --sockets does not say. */
#define DEFAULT_SOCKETS "var/rookery"
#define DEFAULT_ADDRESS "127.0.0.1"
#define DEFAULT_PORT 8080
#define PORT_MAX 65535   /* TCP's */
/* Exit status of serve and migrate besides sysexits.h's EX_USAGE: EXIT_FAILURE, or this one. */
#define EXIT_DB_NEWER 2   /* the database was made by a newer Rookery */
#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static const char usage_main[] =
	"usage: rookery <command> [options]\n"
	"\n"
	"Rookery: a play-by-mail server for chess variants.\n"
	"\n"
	"commands:\n"
	"  serve      run the web server, the JSON API and the mail service\n"
	"  mail-in    hand one incoming mail (standard input) to the running server\n"
	"  backup     copy the running server's database into a new file, consistently\n"
	"  migrate    create or upgrade the database, then exit\n"
	"  copy       copy an SQLite database into an empty PostgreSQL one, and check it\n"
	"\n"
	"options:\n"
	"  -h, --help       show this help (rookery <command> --help for a command's options)\n"
	"  -V, --version    show the version\n";

static const char usage_serve[] =
	"usage: rookery serve [options]\n"
	"\n"
	"Serve the web pages and the JSON API until SIGTERM or SIGINT.\n"
	"\n"
	"options:\n"
	"  --address ADDR    listen on this IPv4 or IPv6 address (default " DEFAULT_ADDRESS ")\n"
	"  --port PORT       listen on this TCP port (default " STRINGIFY(DEFAULT_PORT) "; 0 picks a free one)\n"
	"  --db PATH|URI     the SQLite database (default " DEFAULT_DB ", created if missing), or a\n"
	"                    PostgreSQL database as a libpq URI (postgresql://user@host/dbname),\n"
	"                    which several daemons may share\n"
	"  --sockets PREFIX  the daemon's Unix sockets are PREFIX.mail.sock and PREFIX.control.sock,\n"
	"                    and PREFIX.lock keeps a second daemon off them (default: the SQLite\n"
	"                    database's path; with PostgreSQL " DEFAULT_SOCKETS ")\n"
	"  --base-url URL    the public address used in links (default http://ADDR:PORT)\n"
	"  --proxy ADDR      requests from this address come through a reverse proxy: rate limits\n"
	"                    count the client it names last in X-Forwarded-For, and the proxy is\n"
	"                    not held to the connections-per-address limit\n"
	"  --games-per-hour N\n"
	"                    games one client address may create an hour (default "
	STRINGIFY(LIMIT_GAMES_PER_HOUR) ";\n"
	"                    0: no limit)\n"
	"  --sweep-seconds N how often to look for expired links, held mails and digests due\n"
	"                    (default " STRINGIFY(LIMIT_SWEEP_INTERVAL_S) ")\n"
	"  --vacation-days N vacation days each player has a calendar year (UTC; default "
	STRINGIFY(LIMIT_VACATION_DAYS) ",\n"
	"                    0 to " STRINGIFY(LIMIT_VACATION_DAYS_MAX) ")\n"
	"  --view-cache N    rendered game views kept in memory (default "
	STRINGIFY(LIMIT_VIEW_CACHE_ENTRIES) "; 0 keeps none and\n"
	"                    makes every view afresh)\n"
	"  --events-keepalive N\n"
	"                    seconds between the keep-alive comments of live event streams\n"
	"                    (default " STRINGIFY(LIMIT_EVENTS_KEEPALIVE_S) ", 1 to " STRINGIFY(LIMIT_EVENTS_KEEPALIVE_S) ")\n"
	"  --demo            create a demo Nchess game at start and print its seat links\n"
	"\n"
	"mail options:\n"
	"  --smtp URL        send mail through this SMTP server: smtp://host:port (STARTTLS when\n"
	"                    offered) or smtps://host:port (TLS); user:password@ before the host\n"
	"                    to authenticate. Without --smtp, mails are written to a maildir.\n"
	"  --smtp-tls MODE   for smtp:// URLs: try (default), require or none\n"
	"  --mail-from ADDR  the sender of outgoing mail (default rookery@REPLY-DOMAIN)\n"
	"  --reply-domain D  replies go to play+TOKEN@D; route that domain to `rookery mail-in`\n"
	"                    (default localhost)\n"
	"  --maildir DIR     where mails go without --smtp (default: mail/ beside the sockets)\n"
	"  --mail-retry SEC  first retry delay of a failed delivery, doubling each time (default "
	STRINGIFY(LIMIT_MAIL_RETRY_S) ")\n"
	"  --mail-group GRP  the group (name or number) of the mail socket PREFIX.mail.sock, mode 0660,\n"
	"                    for the user the MTA's pipe runs as (default: the daemon's group)\n"
	"  -h, --help        show this help\n";

static const char usage_mail_in[] =
	"usage: rookery mail-in [options] < message\n"
	"\n"
	"Hand one incoming mail to the running `rookery serve` of the same database, the way an\n"
	"MTA delivers to a pipe. Exit status follows sysexits.h: 0 handled (acted on, or answered\n"
	"with a refusal mail), 65 unreadable message (bounce), 67 not a Rookery reply address\n"
	"(bounce), 75 the server is not running (the MTA keeps the mail and retries).\n"
	"The server's socket PREFIX.mail.sock (mode 0660) takes mail and nothing else; run this as\n"
	"a user of its group (see `rookery serve --mail-group`). Daemons sharing a PostgreSQL\n"
	"database all take mail: any of them may be given it.\n"
	"\n"
	"options:\n"
	"  --db PATH|URI      the database the server uses (default " DEFAULT_DB ")\n"
	"  --sockets PREFIX   the server's --sockets, when it was given one\n"
	"  --recipient ADDR   the envelope recipient (default: $ORIGINAL_RECIPIENT or\n"
	"                     $RECIPIENT as Postfix sets them, else the message's headers)\n"
	"  -h, --help         show this help\n";

static const char usage_backup[] =
	"usage: rookery backup [options] FILE\n"
	"\n"
	"Ask the running `rookery serve` of the database for an online backup into FILE, a new\n"
	"file readable by its owner only (never copy the files of a live database). The request goes\n"
	"through the server's control socket PREFIX.control.sock, which only the user the server runs\n"
	"as may use. FILE must not exist, nor FILE.part, and its directory must not be a symbolic\n"
	"link. Exit status: 0 done, 74 the backup failed or was refused, 75 the server is not\n"
	"running, 64 bad usage. A PostgreSQL database is backed up with PostgreSQL's tools\n"
	"(docs/operations.md).\n"
	"\n"
	"options:\n"
	"  --db PATH         the database the server uses (default " DEFAULT_DB ")\n"
	"  --sockets PREFIX  the server's --sockets, when it was given one\n"
	"  -h, --help        show this help\n";

static const char usage_migrate[] =
	"usage: rookery migrate [options]\n"
	"\n"
	"Create the database or apply pending migrations, print the schema version, exit.\n"
	"A database made by a newer rookery is refused and left alone.\n"
	"\n"
	"options:\n"
	"  --db PATH|URI     the SQLite database (default " DEFAULT_DB "), or a PostgreSQL\n"
	"                    database as a libpq URI (postgresql://user@host/dbname)\n"
	"  -h, --help        show this help\n";

/* Create the directory holding path when it is the default one under var/. */
static void ensure_parent_dir(const char *path)
{
	char *dir = xstrdup(path), *slash = strrchr(dir, '/');

	if (slash && slash != dir) {
		*slash = 0;
		if (mkdir(dir, 0700) && errno != EEXIST)
			fprintf(stderr, "rookery: cannot create %s: %s\n", dir, strerror(errno));
	}
	free(dir);
}

static int open_db(const char *path, db **out)
{
	db_error de;

	if (!db_target_is_postgresql(path))
		ensure_parent_dir(path);
	if (db_open(path, out, &de)) {
		fprintf(stderr, "rookery: %s\n", de.message);
		return de.code == DB_E_VERSION ? EXIT_DB_NEWER : EXIT_FAILURE;
	}
	return 0;
}

/*
 * The prefix of the daemon's sockets and lock: --sockets, else the SQLite database's path
 * (its sockets lie beside it), else DEFAULT_SOCKETS.
 */
static const char *sockets_prefix(const char *sockets, const char *dbpath)
{
	if (sockets)
		return sockets;
	return db_target_is_postgresql(dbpath) ? DEFAULT_SOCKETS : dbpath;
}

/*
 * One daemon per SQLite database, whatever its --sockets: hold an exclusive
 * lock on "<db>.lock" for the daemon's life. Daemons sharing a PostgreSQL
 * database each have sockets of their own: there the lock is "<prefix>.lock",
 * one daemon per sockets. Returns the lock's descriptor, or -1 after saying why.
 */
static int lock_database(const char *prefix, const char *dbpath)
{
	char *path = xasprintf("%s.lock", db_target_is_postgresql(dbpath) ? prefix : dbpath);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);

	if (fd < 0) {
		fprintf(stderr, "rookery: cannot open %s: %s\n", path, strerror(errno));
	} else if (flock(fd, LOCK_EX | LOCK_NB)) {
		if (db_target_is_postgresql(dbpath))
			fprintf(stderr, "rookery: another rookery serve is using the sockets %s; give this one "
				"--sockets of its own\n", prefix);
		else
			fprintf(stderr, "rookery: another rookery serve is using %s; only one may write a database\n",
				dbpath);
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

/* A whole number 0..max as strtol reads it (leading spaces and a sign allowed): --port, --mail-retry. */
static int parse_number(const char *s, long max, unsigned *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

/* A group by name (one that exists) or by number; -1 for anything else. */
static int parse_group(const char *s, gid_t *gid)
{
	const struct group *g = getgrnam(s);
	char *end;
	long v;

	if (g) {
		*gid = g->gr_gid;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || (gid_t)v == (gid_t)-1 || (long)(gid_t)v != v)
		return -1;
	*gid = (gid_t)v;
	return 0;
}

/* A whole number 0..max in decimal digits only (no sign, no spaces): the options that count. */
static int parse_count(const char *s, unsigned max, unsigned *out)
{
	long long v;

	if (text_whole_number(s, 18, &v) || v > max)
		return -1;
	*out = (unsigned)v;
	return 0;
}

static int create_demo(app *a)
{
	game_seat_in seats[2] = {{"Ann", NULL, 0}, {"Ben", NULL, 0}};
	game_created c;
	app_error err;

	if (game_create(a, NULL, "nchess", seats, 2, &c, &err)) {
		fprintf(stderr, "rookery: cannot create the demo game: %s\n", err.message);
		return -1;
	}
	printf("Demo Nchess game %s: open each seat link in its own browser tab.\n", c.id);
	for (int i = 0; i < c.nseats; i++) {
		char *url = link_seat(a, c.id, c.tokens[i]);
		printf("  %-5s (%s): %s\n", i == 0 ? "South" : "North", seats[i].name, url);
		free(url);
	}
	fflush(stdout);
	return 0;
}

/* What `rookery serve` was asked for, and what it starts; serve_stop undoes all of it. */
typedef struct serving {
	const char *address, *dbpath, *base, *smtp, *tls, *from, *domain, *maildir, *sockets;
	unsigned port, retry;
	unsigned threads;          /* HTTP polling threads, each with a reading connection */
	unsigned view_cache;       /* rendered views kept (--view-cache); 0: none */
	unsigned keepalive;        /* seconds between the keep-alive comments of event streams */
	int demo;
	gid_t mail_group;
	char proxy[HTTP_ADDRESS_TEXT];
	app a;
	mail_config mc;
	int lock_fd;
	http_server *srv;
	event_hub *events;
	unix_server *msock, *csock;
	sweeper *sweep;
	follower *follow;
	char *sock_path, *control_path;
} serving;

#define GO_ON (-1)   /* the options leave serve to go on: no exit status yet */

/* An option that counts, min..max, into *out: GO_ON, or EX_USAGE after saying why. */
static int count_option(const char *name, const char *arg, unsigned min, unsigned max, unsigned *out)
{
	if (parse_count(arg, max, out) == 0 && *out >= min)
		return GO_ON;
	fprintf(stderr, "rookery: --%s must be a number from %u to %u, not \"%s\"\n", name, min, max, arg);
	return EX_USAGE;
}

/* One option of serve with its argument: GO_ON, or the exit status. */
static int serve_option(serving *s, int c, const char *arg)
{
	switch (c) {
	case 'a': s->address = arg; break;
	case 'p':
		if (parse_number(arg, PORT_MAX, &s->port)) {
			fprintf(stderr, "rookery: --port must be 0..%d, not \"%s\"\n", PORT_MAX, arg);
			return EX_USAGE;
		}
		break;
	case 'd': s->dbpath = arg; break;
	case 'k': s->sockets = arg; break;
	case 'b': s->base = arg; break;
	case 'D': s->demo = 1; break;
	case 'S': s->smtp = arg; break;
	case 'T': s->tls = arg; break;
	case 'F': s->from = arg; break;
	case 'R': s->domain = arg; break;
	case 'M': s->maildir = arg; break;
	case 'Y':
		if (parse_number(arg, LIMIT_MAIL_RETRY_OPTION_MAX_S, &s->retry) || s->retry == 0) {
			fprintf(stderr, "rookery: --mail-retry must be 1..%d seconds, not \"%s\"\n",
				LIMIT_MAIL_RETRY_OPTION_MAX_S, arg);
			return EX_USAGE;
		}
		break;
	case 'P':
		if (http_proxy_address(arg, s->proxy, sizeof s->proxy)) {
			fprintf(stderr, "rookery: --proxy must be an IPv4 or IPv6 address, not \"%s\"\n", arg);
			return EX_USAGE;
		}
		s->a.proxy = s->proxy;
		break;
	case 'G':
		if (parse_group(arg, &s->mail_group)) {
			fprintf(stderr, "rookery: --mail-group must be a group name or number, not \"%s\"\n", arg);
			return EX_USAGE;
		}
		break;
	case 'W': return count_option("sweep-seconds", arg, 1, LIMIT_SWEEP_INTERVAL_MAX_S, &s->a.sweep_interval_s);
	case 'H': return count_option("games-per-hour", arg, 0, LIMIT_GAMES_PER_HOUR_MAX, &s->a.games_per_hour);
	case 'V': return count_option("vacation-days", arg, 0, LIMIT_VACATION_DAYS_MAX, &s->a.vacation_days);
	case 'C': return count_option("view-cache", arg, 0, LIMIT_VIEW_CACHE_ENTRIES_MAX, &s->view_cache);
	case 'K': return count_option("events-keepalive", arg, 1, LIMIT_EVENTS_KEEPALIVE_S, &s->keepalive);
	case 'h': fputs(usage_serve, stdout); return 0;
	default: fputs(usage_serve, stderr); return EX_USAGE;
	}
	return GO_ON;
}

/* The options as a whole, once read: GO_ON, or EX_USAGE after saying why. */
static int serve_check_options(const serving *s, int argc, char **argv)
{
	if (optind < argc) {
		fprintf(stderr, "rookery serve: unexpected argument \"%s\"\n%s", argv[optind], usage_serve);
		return EX_USAGE;
	}
	if (s->base && strncmp(s->base, "http://", 7) && strncmp(s->base, "https://", 8)) {
		fprintf(stderr, "rookery: --base-url must start with http:// or https://\n");
		return EX_USAGE;
	}
	if (s->smtp && strncmp(s->smtp, "smtp://", 7) && strncmp(s->smtp, "smtps://", 8)) {
		fprintf(stderr, "rookery: --smtp must start with smtp:// or smtps://\n");
		return EX_USAGE;
	}
	if (strcmp(s->tls, "try") && strcmp(s->tls, "require") && strcmp(s->tls, "none")) {
		fprintf(stderr, "rookery: --smtp-tls must be try, require or none\n");
		return EX_USAGE;
	}
	if (!*s->domain || strpbrk(s->domain, "@ \t<>")) {
		fprintf(stderr, "rookery: --reply-domain must be a domain name\n");
		return EX_USAGE;
	}
	return GO_ON;
}

/* Read serve's command line into s: GO_ON, or the exit status (0 after --help). */
static int serve_parse_options(serving *s, int argc, char **argv)
{
	static const struct option opts[] = {
		{"address", required_argument, NULL, 'a'},
		{"port", required_argument, NULL, 'p'},
		{"db", required_argument, NULL, 'd'},
		{"sockets", required_argument, NULL, 'k'},
		{"base-url", required_argument, NULL, 'b'},
		{"demo", no_argument, NULL, 'D'},
		{"smtp", required_argument, NULL, 'S'},
		{"smtp-tls", required_argument, NULL, 'T'},
		{"mail-from", required_argument, NULL, 'F'},
		{"reply-domain", required_argument, NULL, 'R'},
		{"maildir", required_argument, NULL, 'M'},
		{"mail-retry", required_argument, NULL, 'Y'},
		{"proxy", required_argument, NULL, 'P'},
		{"mail-group", required_argument, NULL, 'G'},
		{"games-per-hour", required_argument, NULL, 'H'},
		{"sweep-seconds", required_argument, NULL, 'W'},
		{"vacation-days", required_argument, NULL, 'V'},
		{"view-cache", required_argument, NULL, 'C'},
		{"events-keepalive", required_argument, NULL, 'K'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1)
		if ((rc = serve_option(s, c, optarg)) != GO_ON)
			return rc;
	return serve_check_options(s, argc, argv);
}

/* The mail settings from the options; the maildir defaults to mail/ beside the database. */
static void serve_mail_config(serving *s)
{
	mail_config *mc = &s->mc;

	mc->smtp_url = s->smtp ? xstrdup(s->smtp) : NULL;
	mc->tls = !strcmp(s->tls, "require") ? MAIL_TLS_REQUIRE : !strcmp(s->tls, "none") ? MAIL_TLS_NONE : MAIL_TLS_TRY;
	mc->reply_domain = xstrdup(s->domain);
	mc->from = s->from ? xstrdup(s->from) : xasprintf("rookery@%s", s->domain);
	if (s->maildir) {
		mc->maildir = xstrdup(s->maildir);
	} else {
		char *copy = xstrdup(sockets_prefix(s->sockets, s->dbpath));
		mc->maildir = xasprintf("%s/mail", dirname(copy));
		free(copy);
	}
	s->a.mail = mc;
}

/*
 * Every connection is a descriptor: raise the soft limit towards the hard
 * one so that LIMIT_CONNECTIONS fit, and say so when they cannot.
 */
static void serve_raise_descriptors(void)
{
	const rlim_t need = (rlim_t)LIMIT_CONNECTIONS + LIMIT_DESCRIPTORS_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need ? rl.rlim_max : need;
		if (setrlimit(RLIMIT_NOFILE, &rl))
			getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need)
		log_event("only %llu file descriptors (the hard limit): %d connections and the database need %llu; "
			  "new connections will wait when they run out", (unsigned long long)rl.rlim_cur,
			  LIMIT_CONNECTIONS, (unsigned long long)need);
}

/* Owner-only files, and SIGTERM and SIGINT left to sigwait: before any thread starts. */
static void serve_prepare_process(sigset_t *set)
{
	/* Everything the daemon creates holds secrets (dice seeds, keys, tokens): owner-only. */
	umask(077);
	/* Signals are taken by sigwait in serve_wait; block them before any thread starts. */
	sigemptyset(set);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGINT);
	pthread_sigmask(SIG_BLOCK, set, NULL);
	signal(SIGPIPE, SIG_IGN);
	serve_raise_descriptors();
}

/* Check the templates, lock and open the database, load the keys: 0, or the exit status. */
static int serve_open_database(serving *s)
{
	tmpl_error te;
	int rc;

	if (tmpl_check(&te)) {
		fprintf(stderr, "rookery: broken template: %s\n", te.message);
		return EXIT_FAILURE;
	}
	const char *prefix = sockets_prefix(s->sockets, s->dbpath);

	ensure_parent_dir(prefix);
	if ((s->lock_fd = lock_database(prefix, s->dbpath)) < 0)
		return EXIT_FAILURE;
	if ((rc = open_db(s->dbpath, &s->a.db)))
		return rc;
	app_watch_changes(&s->a);
	if (app_load_keys(&s->a))
		return EXIT_FAILURE;
	if (!s->threads) {
		long cores = sysconf(_SC_NPROCESSORS_ONLN);
		s->threads = cores < 1 ? 1 : cores > LIMIT_HTTP_THREADS ? LIMIT_HTTP_THREADS : (unsigned)cores;
	}
	db_error de;
	if (!(s->a.readers = readers_open(s->dbpath, s->threads, &de))) {
		fprintf(stderr, "rookery: cannot open the reading connections: %s\n", de.message);
		return EXIT_FAILURE;
	}
	return 0;
}

/* The public address of links: --base-url without its trailing slashes, else where we listen. */
static void serve_base_url(serving *s)
{
	if (s->base) {
		s->a.base_url = xstrdup(s->base);
		size_t n = strlen(s->a.base_url);
		while (n > 0 && s->a.base_url[n - 1] == '/')
			s->a.base_url[--n] = 0;
	} else {
		s->a.base_url = xasprintf(strchr(s->address, ':') ? "http://[%s]:%u" : "http://%s:%u", s->address,
					  s->port);
	}
	s->mc.link_base = s->a.base_url;
}

/* Start the outbox, the web server, the sweeper and the two sockets, then say so: 0, or EXIT_FAILURE. */
static int serve_start_listeners(serving *s)
{
	s->a.outbox = outbox_start(&s->a, (int)s->retry);
	if (!s->a.outbox)
		return EXIT_FAILURE;
	if (!(s->a.writer = group_writer_start(&s->a))) {
		fprintf(stderr, "rookery: cannot start the writer thread\n");
		return EXIT_FAILURE;
	}
	if (s->view_cache) {
		s->a.views = view_cache_new(s->view_cache, LIMIT_VIEW_CACHE_BYTES);
		/* Other daemons change a shared database: each read asks it for the games' versions. */
		if (!db_shared(s->a.db))
			s->a.versions = versions_new(LIMIT_VERSIONS_KEPT);
	}
	if (!(s->events = events_start(&s->a, s->keepalive))) {
		fprintf(stderr, "rookery: cannot start the live events' keep-alive thread\n");
		return EXIT_FAILURE;
	}
	if (db_shared(s->a.db)) {
		db_error de;
		if (!(s->follow = follower_start(&s->a, s->dbpath, &de))) {
			fprintf(stderr, "rookery: cannot follow the database's commits: %s\n", de.message);
			return EXIT_FAILURE;
		}
	}
	s->srv = http_start(&s->a, &routes_site, s->address, s->port, s->threads);
	if (!s->srv)
		return EXIT_FAILURE;
	if (s->port == 0)
		s->port = http_port(s->srv);
	serve_base_url(s);
	/* Mail in and the sweeper's mails out need the public address for their links. */
	s->sock_path = mail_socket_path(sockets_prefix(s->sockets, s->dbpath));
	s->control_path = control_socket_path(sockets_prefix(s->sockets, s->dbpath));
	if (!(s->sweep = sweeper_start(&s->a)) ||
	    !(s->msock = mail_socket_start(&s->a, s->sock_path, s->mail_group)) ||
	    !(s->csock = control_socket_start(&s->a, s->control_path)))
		return EXIT_FAILURE;
	char shown[DB_TARGET_TEXT];
	db_target_describe(s->dbpath, shown, sizeof shown);
	log_event("rookery %s serving %s on %s port %u (database %s)", ROOKERY_VERSION, s->a.base_url,
		  s->address, s->port, shown);
	log_event("mail: replies to play+...@%s, incoming through %s, outgoing %s %s", s->mc.reply_domain,
		  s->sock_path, s->mc.smtp_url ? "over SMTP" : "into the maildir", s->mc.smtp_url ? "" : s->mc.maildir);
	printf("Rookery is serving %s/\n", s->a.base_url);
	fflush(stdout);
	if (s->demo) {
		app_writer_lock(&s->a);
		int bad = create_demo(&s->a);
		app_writer_unlock(&s->a);
		if (bad)
			return EXIT_FAILURE;
	}
	return 0;
}

/* Serve until SIGTERM or SIGINT: the threads do the work, this one waits. */
static void serve_wait(const sigset_t *set)
{
	int sig;

	if (sigwait(set, &sig) == 0)
		log_event("received %s, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* How the view cache did, for the operator (and the tests of its bound). */
static void serve_log_views(view_cache *c)
{
	view_cache_stats st;

	if (!c)
		return;
	view_cache_stats_get(c, &st);
	log_event("view cache: %llu hits, %llu misses, %llu stored, %llu evicted; %zu views (%zu bytes) held",
		  st.hits, st.misses, st.stores, st.evictions, st.entries, st.bytes);
}

/* Stop whatever was started, in order, and free s; returns rc (0: a clean stop, said in the log). */
static int serve_stop(serving *s, int rc)
{
	http_stop(s->srv, LIMIT_SHUTDOWN_GRACE_S);
	group_writer_stop(s->a.writer);
	unix_server_stop(s->msock);
	unix_server_stop(s->csock);
	sweeper_stop(s->sweep);
	if (outbox_stop(s->a.outbox, LIMIT_MAIL_STOP_GRACE_S)) {
		/* The worker is stuck in a transfer: keep it off the database for good, and leave
		 * what it may still read alone; the process ends right after. */
		pthread_mutex_lock(&s->a.lock);
		db_close(s->a.db);
		log_event("stopped cleanly (one mail delivery abandoned)");
		close(s->lock_fd);
		_exit(0);
	}
	/* Nothing changes games any more: nobody publishes to the hub, tells versions or reads. */
	follower_stop(s->follow);
	events_stop(s->events);
	serve_log_views(s->a.views);
	view_cache_free(s->a.views);
	versions_free(s->a.versions);
	readers_close(s->a.readers);
	db_close(s->a.db);
	if (s->lock_fd >= 0)
		close(s->lock_fd);
	if (rc == 0)
		log_event("stopped cleanly");
	free(s->a.base_url);
	free(s->sock_path);
	free(s->control_path);
	free(s->mc.smtp_url);
	free(s->mc.reply_domain);
	free(s->mc.from);
	free(s->mc.maildir);
	tmpl_cleanup();
	sodium_memzero(s->a.form_key, sizeof s->a.form_key);
	return rc;
}

static int cmd_serve(int argc, char **argv)
{
	serving s = {
		.address = DEFAULT_ADDRESS, .dbpath = DEFAULT_DB, .tls = "try", .domain = "localhost",
		.port = DEFAULT_PORT, .retry = LIMIT_MAIL_RETRY_S, .keepalive = LIMIT_EVENTS_KEEPALIVE_S, .mail_group = (gid_t)-1, .lock_fd = -1,
		.a = {.lock = PTHREAD_MUTEX_INITIALIZER, .games_per_hour = LIMIT_GAMES_PER_HOUR,
		      .sweep_interval_s = LIMIT_SWEEP_INTERVAL_S, .vacation_days = LIMIT_VACATION_DAYS},
		.view_cache = LIMIT_VIEW_CACHE_ENTRIES,
	};
	sigset_t set;
	int rc = serve_parse_options(&s, argc, argv);

	if (rc != GO_ON)
		return rc;
	serve_mail_config(&s);
	serve_prepare_process(&set);
	rc = serve_open_database(&s);
	if (!rc)
		rc = serve_start_listeners(&s);
	if (!rc)
		serve_wait(&set);
	return serve_stop(&s, rc);
}

static int cmd_mail_in(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"sockets", required_argument, NULL, 'k'},
		{"recipient", required_argument, NULL, 'r'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dbpath = DEFAULT_DB, *recipient = NULL, *sockets = NULL;
	size_t cap = 64 * 1024, len = 0;
	char *data, *path, msg[512];
	int c, code;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dbpath = optarg; break;
		case 'k': sockets = optarg; break;
		case 'r': recipient = optarg; break;
		case 'h': fputs(usage_mail_in, stdout); return 0;
		default: fputs(usage_mail_in, stderr); return EX_USAGE;
		}
	}
	if (!recipient)
		recipient = getenv("ORIGINAL_RECIPIENT");
	if (!recipient)
		recipient = getenv("RECIPIENT");
	data = xmalloc(cap);
	for (;;) {
		if (len == cap) {
			if (cap > MAIL_MAX_BYTES) {
				fprintf(stderr, "rookery mail-in: the message is larger than %d bytes\n", MAIL_MAX_BYTES);
				free(data);
				return MAIL_IN_DATAERR;
			}
			cap *= 2;
			data = xrealloc(data, cap);
		}
		ssize_t n = read(STDIN_FILENO, data + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, "rookery mail-in: cannot read the message: %s\n", strerror(errno));
			free(data);
			return MAIL_IN_TEMPFAIL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len > MAIL_MAX_BYTES) {
		fprintf(stderr, "rookery mail-in: the message is larger than %d bytes\n", MAIL_MAX_BYTES);
		free(data);
		return MAIL_IN_DATAERR;
	}
	path = mail_socket_path(sockets_prefix(sockets, dbpath));
	code = mail_socket_send(path, data, len, recipient, msg, sizeof msg);
	fprintf(stderr, "rookery mail-in: %s\n", msg);
	free(path);
	free(data);
	return code;
}

static int cmd_backup(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"sockets", required_argument, NULL, 'k'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dbpath = DEFAULT_DB, *sockets = NULL;
	char msg[512], *path, *dest, cwd[4096];
	int c, code;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dbpath = optarg; break;
		case 'k': sockets = optarg; break;
		case 'h': fputs(usage_backup, stdout); return 0;
		default: fputs(usage_backup, stderr); return EX_USAGE;
		}
	}
	if (optind + 1 != argc) {
		fputs(usage_backup, stderr);
		return EX_USAGE;
	}
	/* The daemon may run elsewhere: give it an absolute path. */
	if (argv[optind][0] == '/')
		dest = xstrdup(argv[optind]);
	else if (getcwd(cwd, sizeof cwd))
		dest = xasprintf("%s/%s", cwd, argv[optind]);
	else
		dest = xstrdup(argv[optind]);
	path = control_socket_path(sockets_prefix(sockets, dbpath));
	code = control_socket_backup(path, dest, msg, sizeof msg);
	fprintf(code ? stderr : stdout, "rookery backup: %s%s%s\n", msg, code ? "" : " to ", code ? "" : dest);
	free(path);
	free(dest);
	return code;
}

static int cmd_migrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *dbpath = DEFAULT_DB;
	db *d;
	int c, rc;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': dbpath = optarg; break;
		case 'h': fputs(usage_migrate, stdout); return 0;
		default: fputs(usage_migrate, stderr); return EX_USAGE;
		}
	}
	umask(077);   /* as serve: the database is the owner's only */
	if ((rc = open_db(dbpath, &d)))
		return rc;
	char shown[DB_TARGET_TEXT];
	db_target_describe(dbpath, shown, sizeof shown);
	printf("%s: schema version %d\n", shown, db_schema_version(d));
	db_close(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (sodium_init() < 0) {
		fputs("rookery: libsodium failed to start\n", stderr);
		return EXIT_FAILURE;
	}
	if (argc < 2) {
		fputs(usage_main, stderr);
		return EX_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("rookery %s\n", ROOKERY_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "serve")) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		mail_parse_init();
		int rc = cmd_serve(argc - 1, argv + 1);
		mail_parse_shutdown();
		curl_global_cleanup();
		return rc;
	}
	if (!strcmp(argv[1], "migrate"))
		return cmd_migrate(argc - 1, argv + 1);
	if (!strcmp(argv[1], "mail-in"))
		return cmd_mail_in(argc - 1, argv + 1);
	if (!strcmp(argv[1], "backup"))
		return cmd_backup(argc - 1, argv + 1);
	if (!strcmp(argv[1], "copy"))
		return copy_main(argc - 1, argv + 1);
	fprintf(stderr, "rookery: unknown command \"%s\"\n%s", argv[1], usage_main);
	return EX_USAGE;
}
