/* limits.h - every limit of the service, named in one place. */

/*
 * A limit is a number the service holds anything to that it does not write
 * itself: a size, count, depth or rate a client, a mail, a local peer or a
 * command-line option may reach, and every timeout, period and batch of the
 * daemon's own work. The tests read the LIMIT_ numbers from here. Not limits,
 * and so left beside their code: room in buffers for text the service formats
 * itself (times, numbers, keys), sizes fixed by a format (token and hash
 * lengths in token.h, dice.h, mail.h), HTTP status codes, file modes and the
 * board's drawing geometry.
 */
#ifndef ROOKERY_LIMITS_H
#define ROOKERY_LIMITS_H

/* Units of time, in seconds (long long, as unix times are). */
#define CLOCK_MINUTE_S               60LL
#define CLOCK_HOUR_S                 (60 * CLOCK_MINUTE_S)
#define CLOCK_DAY_HOURS              24
#define CLOCK_DAY_S                  (CLOCK_DAY_HOURS * CLOCK_HOUR_S)   /* a UTC day: unix time / CLOCK_DAY_S counts them */

/* Rates: every "per hour" limit below counts the requests of this window. */
#define LIMIT_RATE_WINDOW_S          ((int)CLOCK_HOUR_S)   /* also the Retry-After of every 429 */

/* HTTP */
#define LIMIT_CONNECTIONS            2560         /* open connections at once: LIMIT_EVENT_STREAMS event streams and 512 more */
#define LIMIT_CONNECTIONS_PER_IP     32
#define LIMIT_DESCRIPTORS_SPARE      256          /* descriptors beyond the connections (database, sockets, mail); serve raises its limit to both */
#define LIMIT_CONNECTION_TIMEOUT_S   30           /* idle or slow connections are closed */
#define LIMIT_REQUEST_RECEIVE_S      20           /* a request line, headers and body must arrive within this, however trickled */
#define LIMIT_HEADER_MEMORY          (32 * 1024)  /* per connection: request line and headers */
#define LIMIT_URL_LENGTH             2048
#define LIMIT_BODY_JSON              (16 * 1024)  /* JSON API bodies */
#define LIMIT_BODY_FORM              (16 * 1024)  /* HTML form bodies */
#define LIMIT_BODY_NONE              0            /* routes that take no body */
#define LIMIT_BODY_DISCARD           (1024 * 1024) /* a body over its limit is read and dropped up to this, so the client gets its 413 */
#define LIMIT_JSON_DEPTH             8
#define LIMIT_HTTP_THREADS           16           /* polling threads at most (one per core up to this), each with a reading connection */
#define LIMIT_GROUP_CHANGES          64           /* changes one group commit holds at most (group_commit.h) */
#define LIMIT_VERSIONS_KEPT          65536        /* games whose latest version is known in memory (core/versions.h), with the view cache */
#define LIMIT_VIEW_CACHE_ENTRIES     4096         /* rendered game views kept in memory (game/view_cache.h); serve --view-cache */
#define LIMIT_VIEW_CACHE_ENTRIES_MAX 1000000      /* the most --view-cache may give */
#define LIMIT_VIEW_CACHE_BYTES       (64 * 1024 * 1024) /* ... and their text together: a seat's view with its legal moves may be ~100 KiB */
#define LIMIT_STREAM_BLOCK           4096         /* bytes a streamed answer hands over at a time */
#define LIMIT_SHUTDOWN_GRACE_S       10           /* how long in-flight requests may finish */
#define LIMIT_SHUTDOWN_POLL_MS       10           /* how often shutdown looks whether they have */
#define LIMIT_MAIL_STOP_GRACE_S      5            /* how long a mail delivery may finish at shutdown */

/* Live events (GET /api/games/{id}/events) */
#define LIMIT_EVENT_STREAMS          2048         /* event streams open at once; beyond, 503 unavailable */
#define LIMIT_EVENT_STREAMS_PER_ADDRESS 16        /* ... from one client address (below LIMIT_CONNECTIONS_PER_IP); beyond, 429 too_many_streams */
#define LIMIT_EVENTS_KEEPALIVE_S     25           /* a comment on every stream this often, under proxies' idle timeouts and LIMIT_CONNECTION_TIMEOUT_S; serve --events-keepalive */

/* Logs */
#define LIMIT_LOG_LINE               1024         /* bytes of a log line, with its time and newline; the rest is cut */
#define LIMIT_LOG_PATH_WORD          24           /* a longer path segment is logged as "*": it may be a token (32 characters) */

/* Pages */
#define LIMIT_PAGE_SIZE              (8 * 1024 * 1024)  /* a rendered page; the largest real ones are ~200 KiB */
#define LIMIT_TEMPLATE_NESTING       64           /* sections inside sections within one template */
#define LIMIT_TEMPLATE_PARTIALS      32           /* partials inside partials while rendering */

/* Games */
#define LIMIT_MOVE_TEXT              400          /* bytes of a submitted move line */
#define LIMIT_PLY_NUMBER             1000000      /* the largest ply a move request may name (games end far sooner) */
#define LIMIT_ROLLS_PER_MOVE         16           /* dice one move may roll */
#define LIMIT_NAME                   60           /* bytes of a player's name */
#define LIMIT_EMAIL                  254          /* RFC 5321 path limit */
#define LIMIT_GAME_ID                32
#define LIMIT_TOKEN                  64
#define LIMIT_CLIENT_SEED            64           /* printable ASCII characters of a seat's client seed for the dice */
#define LIMIT_GAMES_PER_HOUR         120          /* games one client address may create (serve --games-per-hour) */
#define LIMIT_GAMES_PER_HOUR_MAX     1000000      /* the most --games-per-hour may give */
#define LIMIT_PLIES                  2000         /* a two-seat game is drawn at this ply; n seats: n/2 times as many */
#define LIMIT_CONDITIONAL_DEPTH      8            /* levels of a seat's tree of conditional moves */
#define LIMIT_CONDITIONAL_ANSWERS    64           /* answers in one seat's tree, all levels together */
#define LIMIT_CONDITIONAL_JSON_DEPTH (3 * LIMIT_CONDITIONAL_DEPTH + 4) /* JSON nesting of a tree a level deeper than allowed, refused by its own check */
#define LIMIT_CONDITIONAL_CHAIN      (LIMIT_CONDITIONAL_DEPTH * 4) /* conditional answers one move may set off: each answer uses a level of its seat's tree, so four seats' full trees fit and a due answer is never left waiting unmailed */
#define LIMIT_MOVES_PAGE_DEFAULT     100          /* moves (or plies of dice) in one page of /moves, /dice */
#define LIMIT_MOVES_PAGE_MAX         500          /* the largest ?limit= a page may ask for */
#define LIMIT_PAGE_RECENT_MOVES      20           /* latest moves on a game page; the rest are a link away */
#define LIMIT_GAME_LIST_DEFAULT      20           /* games in one page of a list (GET /api/games, /games) */
#define LIMIT_GAME_LIST_MAX          100          /* the largest ?limit= a list may ask for */
#define LIMIT_CLOCK_DAYS_MAX         365          /* the most days a time control (days, max_days) may give */
#define LIMIT_CLOCK_INCREMENT_DAYS_MAX 30         /* the most days a bank's increment may be */
#define LIMIT_CLOCK_GIVE_DAYS_MAX    30           /* the most days one gift of time may give */
#define LIMIT_VACATION_DAYS          30           /* vacation days a player has each calendar year (UTC); --vacation-days */
#define LIMIT_VACATION_DAYS_MAX      366          /* the most --vacation-days may give */
#define LIMIT_VACATION_AHEAD_DAYS    366          /* a vacation starts at most this many days ahead */
#define LIMIT_MESSAGE_BYTES          2000         /* bytes of a message between seats ... */
#define LIMIT_MESSAGE_CHARS          1000         /* ... and its characters */
#define LIMIT_MESSAGES_PER_SEAT_HOUR 30           /* messages one seat of a game may send an hour; beyond, 429 rate_limited */
#define LIMIT_PAGE_RECENT_MESSAGES   50           /* latest messages on a seat's game page; all of them in the API */
#define LIMIT_MESSAGES_PER_MAIL      20           /* unread messages one mail carries; the rest come with the next */
#define LIMIT_OPEN_GAME_DAYS         14           /* an open game nobody filled by then ends unplayed ("expired") */
#define LIMIT_CLOCK_SWEEP_BATCH      100          /* timeouts and reminders handled at one sweep; the next takes the rest */
/* A clock's reminders (the sweeper hands the same three to db_clocks_remind). */
#define LIMIT_REMINDER_DAY_S         CLOCK_DAY_S  /* one when a day is left, if the period is longer */
#define LIMIT_REMINDER_LAST_SHARE    10           /* one when a tenth of the period is left ... */
#define LIMIT_REMINDER_LAST_MIN_S    CLOCK_HOUR_S /* ... or an hour, whichever is longer */

/* Mail in */
#define LIMIT_MAIL_SIZE              (256 * 1024) /* an incoming message */
#define LIMIT_MAIL_TEXT              8192         /* bytes of an incoming message's text kept (cut at a character) */
#define LIMIT_MAIL_HTML_CLOSE_SEARCH 64           /* open HTML elements a closing tag is matched against (hostile mail stays linear) */
#define LIMIT_REFUSALS_PER_SEAT_HOUR 5            /* answers to mails that could not act, per seat */
#define LIMIT_REFUSALS_PER_GAME_HOUR 20           /* ... and per game */
#define LIMIT_REFUSAL_QUOTE_LINES    40           /* lines of a refused mail quoted back to the seat */

/* Mail out */
#define LIMIT_INVITING_GAMES_PER_HOUR 30          /* games with invitations one client address may create */
#define LIMIT_INVITATIONS_PER_HOUR   20           /* games one email address may be invited to */
#define LIMIT_MAILS_PER_ADDRESS_DAY  60           /* mails to one address a UTC day; the rest waits for one summary */
#define LIMIT_SUMMARIES_PER_RUN      100          /* daily summaries of held mails composed at one go */
#define LIMIT_SEAT_LINK_DAYS         180          /* a seat link sent by mail keeps working this long */
#define LIMIT_DIGEST_HOUR_DEFAULT    7            /* the UTC hour of a daily digest when its owner named none */
#define LIMIT_DIGEST_GAMES           50           /* running games one digest reads and lists; beyond, it points to /me */
#define LIMIT_DIGESTS_PER_RUN        100          /* daily digests composed at one go */
#define LIMIT_MAIL_ATTEMPTS          8            /* deliveries of one mail tried before it fails for good */
#define LIMIT_MAIL_RETRY_S           60           /* the first retry of a failed delivery, doubling each time; serve --mail-retry */
#define LIMIT_MAIL_RETRY_OPTION_MAX_S 65535       /* the most --mail-retry may give */
#define LIMIT_MAIL_RETRY_DELAY_MAX_S (6 * CLOCK_HOUR_S) /* retries are at most six hours apart */
#define LIMIT_OUTBOX_BATCH           16           /* mails one pass of the delivery worker sends */
#define LIMIT_MAIL_SENDING_S         900          /* longer than any delivery: a claim this old on a shared database was interrupted */
#define LIMIT_OUTBOX_POLL_S          2            /* the worker looks for due retries this often even when not woken */
#define LIMIT_OUTBOX_RECORD_RETRY_S  1            /* a delivery whose outcome cannot be written is written again this often */
#define LIMIT_SMTP_CONNECT_S         15           /* to reach the SMTP server */
#define LIMIT_SMTP_SEND_S            120          /* for one whole SMTP transfer */

/* Local sockets: mail in (<db>.mail.sock) and backups (<db>.control.sock) */
#define LIMIT_SOCKET_LINE            600          /* bytes of a request's first line or of an answer, with its newline */
#define LIMIT_SOCKET_RECIPIENT       500          /* an envelope recipient passed to the daemon; a longer one goes as "-" */
#define LIMIT_SOCKET_IO_S            30           /* a local peer that stalls longer is dropped */
#define LIMIT_SOCKET_BACKLOG         16           /* connections waiting to be served */
#define LIMIT_BACKUP_PATH            500          /* bytes of a backup's path (the request is one line) */

/* Sign-in links ("my games") and expired secrets */
#define LIMIT_SIGNIN_TTL_S           900          /* a sign-in link works once, for 15 minutes */
#define LIMIT_MY_LINK_TTL_S          (30 * CLOCK_DAY_S) /* seat links minted for the list work for a month */
#define LIMIT_SIGNIN_PER_ADDRESS_PER_HOUR 3
#define LIMIT_SIGNIN_PER_CLIENT_PER_HOUR 10
#define LIMIT_SWEEP_INTERVAL_S       60           /* the sweeper's jobs (expiry, summaries, digests) run this often; serve --sweep-seconds */
#define LIMIT_SWEEP_INTERVAL_MAX_S   ((int)CLOCK_HOUR_S)  /* the most --sweep-seconds may give */

/* Board images (GET /games/{id}/board.svg) */
#define LIMIT_BOARD_IMAGE_MAX_AGE_S  86400        /* an earlier ply's image, which never changes, may be kept unasked a day */

#endif
