/* routes.h - the site the daemon serves: the route table with the pages and API behind it. */
#ifndef ROOKERY_ROUTES_H
#define ROOKERY_ROUTES_H

#include "http/http.h"

/* Every route, the HTML error page, and how Bearer tokens are read. */
extern const http_site routes_site;

#endif
