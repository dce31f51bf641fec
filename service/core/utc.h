/* utc.h - the current time as the text every record and log line carries. */
#ifndef ROOKERY_UTC_H
#define ROOKERY_UTC_H

/* The current time as "2026-11-22T03:49:32Z". */
void utc_now(char out[32]);

#endif
