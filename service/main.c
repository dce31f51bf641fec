/* main.c - the rookery command: serve, migrate, --help, --version. */
#include "api.h"
#include "app.h"
#include "db.h"
#include "game.h"
#include "http.h"
#include "limits.h"
#include "log.h"
#include "tmpl.h"
#include "xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_DB "var/rookery.db"

static const char usage_main[] =
	"usage: rookery <command> [options]\n"
	"\n"
	"Rookery: a play-by-mail server for chess variants.\n"
	"\n"
	"commands:\n"
	"  serve      run the web server and JSON API\n"
	"  migrate    create or upgrade the database, then exit\n"
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
	"  --address ADDR    listen on this IPv4 or IPv6 address (default 127.0.0.1)\n"
	"  --port PORT       listen on this TCP port (default 8080; 0 picks a free one)\n"
	"  --db PATH         the SQLite database (default " DEFAULT_DB ", created if missing)\n"
	"  --base-url URL    the public address used in links (default http://ADDR:PORT)\n"
	"  --demo            create a demo Nchess game at start and print its seat links\n"
	"  -h, --help        show this help\n";

static const char usage_migrate[] =
	"usage: rookery migrate [options]\n"
	"\n"
	"Create the database or apply pending migrations, print the schema version, exit.\n"
	"\n"
	"options:\n"
	"  --db PATH         the SQLite database (default " DEFAULT_DB ")\n"
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

	ensure_parent_dir(path);
	if (db_open(path, out, &de)) {
		fprintf(stderr, "rookery: %s\n", de.message);
		return de.code == DB_E_VERSION ? 2 : 1;
	}
	return 0;
}

static int parse_port(const char *s, unsigned *port)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > 65535)
		return -1;
	*port = (unsigned)v;
	return 0;
}

static int create_demo(app *a)
{
	game_seat_in seats[2] = {{"Ann", NULL}, {"Ben", NULL}};
	game_created c;
	app_error err;

	if (game_create(a, "nchess", seats, 2, &c, &err)) {
		fprintf(stderr, "rookery: cannot create the demo game: %s\n", err.message);
		return -1;
	}
	printf("Demo Nchess game %s: open each seat link in its own browser tab.\n", c.id);
	for (int i = 0; i < c.nseats; i++) {
		char *url = api_seat_url(a, c.id, c.tokens[i]);
		printf("  %-5s (%s): %s\n", i == 0 ? "South" : "North", seats[i].name, url);
		free(url);
	}
	fflush(stdout);
	return 0;
}

static int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{"address", required_argument, NULL, 'a'},
		{"port", required_argument, NULL, 'p'},
		{"db", required_argument, NULL, 'd'},
		{"base-url", required_argument, NULL, 'b'},
		{"demo", no_argument, NULL, 'D'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *address = "127.0.0.1", *dbpath = DEFAULT_DB, *base = NULL;
	unsigned port = 8080;
	int demo = 0, c, rc = 1, sig;
	app a = {.lock = PTHREAD_MUTEX_INITIALIZER};
	http_server *srv = NULL;
	sigset_t set;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'a': address = optarg; break;
		case 'p':
			if (parse_port(optarg, &port)) {
				fprintf(stderr, "rookery: --port must be 0..65535, not \"%s\"\n", optarg);
				return 64;
			}
			break;
		case 'd': dbpath = optarg; break;
		case 'b': base = optarg; break;
		case 'D': demo = 1; break;
		case 'h': fputs(usage_serve, stdout); return 0;
		default: fputs(usage_serve, stderr); return 64;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "rookery serve: unexpected argument \"%s\"\n%s", argv[optind], usage_serve);
		return 64;
	}
	if (base && strncmp(base, "http://", 7) && strncmp(base, "https://", 8)) {
		fprintf(stderr, "rookery: --base-url must start with http:// or https://\n");
		return 64;
	}

	/* Signals are taken by sigwait below; block them before any thread starts. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);

	tmpl_error te;
	if (tmpl_check(&te)) {
		fprintf(stderr, "rookery: broken template: %s\n", te.message);
		return 1;
	}
	if ((rc = open_db(dbpath, &a.db)))
		return rc;
	rc = 1;
	if (app_load_keys(&a))
		goto out;
	srv = http_start(&a, address, port);
	if (!srv)
		goto out;
	if (port == 0)
		port = http_port(srv);
	if (base) {
		a.base_url = xstrdup(base);
		size_t n = strlen(a.base_url);
		while (n > 0 && a.base_url[n - 1] == '/')
			a.base_url[--n] = 0;
	} else {
		a.base_url = xasprintf(strchr(address, ':') ? "http://[%s]:%u" : "http://%s:%u", address, port);
	}
	log_event("rookery %s serving %s on %s port %u (database %s)", ROOKERY_VERSION, a.base_url,
		  address, port, dbpath);
	printf("Rookery is serving %s/\n", a.base_url);
	fflush(stdout);
	if (demo && create_demo(&a))
		goto out;
	if (sigwait(&set, &sig) == 0)
		log_event("received %s, shutting down", sig == SIGTERM ? "SIGTERM" : "SIGINT");
	rc = 0;
out:
	http_stop(srv, LIMIT_SHUTDOWN_GRACE_S);
	db_close(a.db);
	if (rc == 0)
		log_event("stopped cleanly");
	free(a.base_url);
	tmpl_cleanup();
	sodium_memzero(a.form_key, sizeof a.form_key);
	return rc;
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
		default: fputs(usage_migrate, stderr); return 64;
		}
	}
	if ((rc = open_db(dbpath, &d)))
		return rc;
	printf("%s: schema version %d\n", dbpath, db_schema_version(d));
	db_close(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (sodium_init() < 0) {
		fputs("rookery: libsodium failed to start\n", stderr);
		return 1;
	}
	if (argc < 2) {
		fputs(usage_main, stderr);
		return 64;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage_main, stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("rookery %s\n", ROOKERY_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "serve"))
		return cmd_serve(argc - 1, argv + 1);
	if (!strcmp(argv[1], "migrate"))
		return cmd_migrate(argc - 1, argv + 1);
	fprintf(stderr, "rookery: unknown command \"%s\"\n%s", argv[1], usage_main);
	return 64;
}
