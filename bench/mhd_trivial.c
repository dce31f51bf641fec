/*
 * mhd_trivial.c - the ceiling for GET requests: libmicrohttpd answering every request with the
 * same small JSON, in the daemon's threading mode and with its connection options
 * (service/http/http.c: a pool of internal polling threads, one per core up to LIMIT_HTTP_THREADS
 * as rookery serve sizes it, MHD_USE_AUTO, suspend/resume allowed, the limits of service/core/limits.h).
 *
 * usage: mhd_trivial   (listens on 127.0.0.1, a free port; prints "port N"; stops on SIGTERM/SIGINT)
 */
#include "core/limits.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char body[] = "{\"id\":\"bcdfghjkmnpq\",\"variant\":\"nchess\",\"status\":\"running\",\"ply\":0}";
static struct MHD_Response *reply;

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static int started;
	(void)cls, (void)url, (void)method, (void)version, (void)upload;

	/* As the daemon does: the first call only notes the request, the next one answers. */
	if (!*con_cls) {
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_size) {
		*upload_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(conn, MHD_HTTP_OK, reply);
}

int main(void)
{
	struct sockaddr_in sa;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	sigset_t set;
	int sig;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned threads = cores < 1 ? 1 : cores > LIMIT_HTTP_THREADS ? LIMIT_HTTP_THREADS : (unsigned)cores;

	memset(&sa, 0, sizeof sa);
	sa.sin_family = AF_INET;
	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	reply = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(reply, "Content-Type", "application/json");
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | MHD_USE_ERROR_LOG | MHD_USE_ITC |
			     MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request, NULL,
			     MHD_OPTION_THREAD_POOL_SIZE, threads,
			     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
			     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)LIMIT_CONNECTION_TIMEOUT_S,
			     MHD_OPTION_CONNECTION_LIMIT, (unsigned)LIMIT_CONNECTIONS,
			     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)LIMIT_CONNECTIONS_PER_IP,
			     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)LIMIT_HEADER_MEMORY,
			     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "mhd_trivial: cannot listen on 127.0.0.1\n");
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	printf("port %u\n", info ? info->port : 0);
	fflush(stdout);
	sigwait(&set, &sig);
	MHD_stop_daemon(d);
	MHD_destroy_response(reply);
	return 0;
}
