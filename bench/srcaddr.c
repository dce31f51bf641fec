/*
 * srcaddr.c - LD_PRELOAD shim for the load generator (wrk): TCP connections to 127.0.0.1 leave
 * from the loopback addresses 127.0.0.2, 127.0.0.3, ... in turn, BENCH_SRC_SPREAD of them
 * (default 4). The daemon allows LIMIT_CONNECTIONS_PER_IP (32) connections per client address,
 * as a real server sees them from many hosts; 64 connections from one address would be refused.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef int (*connect_fn)(int, const struct sockaddr *, socklen_t);

int connect(int fd, const struct sockaddr *addr, socklen_t len)
{
	static connect_fn real;
	static atomic_uint next;

	if (!real)
		real = (connect_fn)dlsym(RTLD_NEXT, "connect");
	if (addr && addr->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in) &&
	    ((const struct sockaddr_in *)addr)->sin_addr.s_addr == htonl(INADDR_LOOPBACK)) {
		const char *s = getenv("BENCH_SRC_SPREAD");
		unsigned spread = s && atoi(s) > 0 ? (unsigned)atoi(s) : 4;
		struct sockaddr_in src;
		memset(&src, 0, sizeof src);
		src.sin_family = AF_INET;
		src.sin_addr.s_addr = htonl(INADDR_LOOPBACK + 1 + atomic_fetch_add(&next, 1) % spread);
		bind(fd, (struct sockaddr *)&src, sizeof src);   /* on failure the kernel picks, as usual */
	}
	return real(fd, addr, len);
}
