/* token.h - seat tokens (random, stored hashed) and per-form tokens. */
#ifndef ROOKERY_TOKEN_H
#define ROOKERY_TOKEN_H

#include <stddef.h>

#define TOKEN_RAW_BYTES 24
#define TOKEN_TEXT 33       /* base64url of 24 bytes is 32 characters, plus NUL */
#define TOKEN_HASH_BYTES 32
#define FORM_TOKEN_TEXT 65  /* hex HMAC-SHA256 */

/* A fresh seat token: 32 characters of base64url (192 bits). */
void token_new(char out[TOKEN_TEXT]);

/* SHA-256 of a token's text, the form stored in the database. */
void token_hash(const char *token, unsigned char out[TOKEN_HASH_BYTES]);

/* True when text looks like a token (length and alphabet), before any lookup. */
int token_well_formed(const char *text);

/* The form token proving a form was served by us to the holder of token. */
void token_form(const unsigned char key[32], const char *token, char out[FORM_TOKEN_TEXT]);

/* Constant-time check of a submitted form token. */
int token_form_ok(const unsigned char key[32], const char *token, const char *submitted);

#endif
