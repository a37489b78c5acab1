#include "CHTTPTransfer.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

// libcurl's declarations, as its stable ABI has them (curl/curl.h).
typedef void CURL;
struct curl_slist;
typedef long long curl_off_t;
extern int curl_global_init(long flags);
extern CURL *curl_easy_init(void);
extern void curl_easy_reset(CURL *curl);
extern void curl_easy_cleanup(CURL *curl);
extern int curl_easy_setopt(CURL *curl, int option, ...);
extern int curl_easy_perform(CURL *curl);
extern int curl_easy_getinfo(CURL *curl, int info, ...);
extern const char *curl_easy_strerror(int code);
extern struct curl_slist *curl_slist_append(struct curl_slist *list, const char *line);
extern void curl_slist_free_all(struct curl_slist *list);

enum {
    GLOBAL_ALL = 3,
    OPT_WRITEDATA = 10001,
    OPT_URL = 10002,
    OPT_ERRORBUFFER = 10010,
    OPT_CAINFO = 10065,
    OPT_WRITEFUNCTION = 20011,
    OPT_POSTFIELDS = 10015,
    OPT_HTTPHEADER = 10023,
    OPT_HEADERDATA = 10029,
    OPT_CUSTOMREQUEST = 10036,
    OPT_NOBODY = 44,
    OPT_FOLLOWLOCATION = 52,
    OPT_HEADERFUNCTION = 20079,
    OPT_HTTPGET = 80,
    OPT_NOSIGNAL = 99,
    OPT_MAXFILESIZE_LARGE = 30117,
    OPT_POSTFIELDSIZE_LARGE = 30120,
    OPT_TIMEOUT_MS = 155,
    OPT_CONNECTTIMEOUT_MS = 156,
    OPT_PROTOCOLS = 181,
    PROTO_HTTP = 1,
    PROTO_HTTPS = 2,
    INFO_RESPONSE_CODE = 0x200000 + 2,
    INFO_OS_ERRNO = 0x200000 + 25,
};

/// The request whose callbacks are running (libcurl's callbacks take one pointer).
typedef struct {
    const habitto_http_request *request;
} transfer;

static size_t on_body(char *bytes, size_t size, size_t count, void *raw) {
    const habitto_http_request *r = ((transfer *)raw)->request;
    return r->on_body(r->context, bytes, size * count);
}

static size_t on_header(char *bytes, size_t size, size_t count, void *raw) {
    const habitto_http_request *r = ((transfer *)raw)->request;
    return r->on_header(r->context, bytes, size * count);
}

int habitto_http_global_init(void) { return curl_global_init(GLOBAL_ALL); }

void *habitto_http_open(void) { return curl_easy_init(); }

void habitto_http_close(void *handle) {
    if (handle) curl_easy_cleanup(handle);
}

static int has_header(const habitto_http_request *r, const char *name) {
    size_t n = strlen(name);
    for (size_t i = 0; i < r->header_count; i++) {
        if (strncasecmp(r->headers[i], name, n) == 0 && r->headers[i][n] == ':') return 1;
    }
    return 0;
}

void habitto_http_perform(void *handle, const habitto_http_request *r, habitto_http_result *out) {
    CURL *curl = handle;
    memset(out, 0, sizeof *out);
    char errors[256] = {0};
    // Reset keeps the live connection and the name cache, and drops every option.
    curl_easy_reset(curl);
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < r->header_count; i++) list = curl_slist_append(list, r->headers[i]);
    // No "Expect: 100-continue" pause before a body, and no form type on a body sent
    // without a type of its own.
    list = curl_slist_append(list, "Expect:");
    if (r->has_body && !has_header(r, "Content-Type")) list = curl_slist_append(list, "Content-Type:");
    transfer t = { r };
    curl_easy_setopt(curl, OPT_URL, r->url);
    curl_easy_setopt(curl, OPT_PROTOCOLS, (long)(PROTO_HTTP | PROTO_HTTPS));
    curl_easy_setopt(curl, OPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(curl, OPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, OPT_TIMEOUT_MS, r->time_limit_ms);
    curl_easy_setopt(curl, OPT_CONNECTTIMEOUT_MS, r->time_limit_ms);
    curl_easy_setopt(curl, OPT_MAXFILESIZE_LARGE, (curl_off_t)r->max_body);
    curl_easy_setopt(curl, OPT_ERRORBUFFER, errors);
    if (r->ca_file) curl_easy_setopt(curl, OPT_CAINFO, r->ca_file);
    curl_easy_setopt(curl, OPT_HTTPHEADER, list);
    curl_easy_setopt(curl, OPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(curl, OPT_WRITEDATA, &t);
    curl_easy_setopt(curl, OPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(curl, OPT_HEADERDATA, &t);
    if (strcmp(r->method, "GET") == 0 && !r->has_body) {
        curl_easy_setopt(curl, OPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(curl, OPT_CUSTOMREQUEST, r->method);
        if (strcmp(r->method, "HEAD") == 0) curl_easy_setopt(curl, OPT_NOBODY, 1L);
        if (r->has_body) {
            curl_easy_setopt(curl, OPT_POSTFIELDSIZE_LARGE, (curl_off_t)r->body_length);
            curl_easy_setopt(curl, OPT_POSTFIELDS, r->body_length ? (const void *)r->body : (const void *)"");
        }
    }
    out->code = curl_easy_perform(curl);
    long status = 0, os_errno = 0;
    curl_easy_getinfo(curl, INFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(curl, INFO_OS_ERRNO, &os_errno);
    out->status = status;
    out->os_errno = (int)os_errno;
    const char *text = errors[0] ? errors : (out->code ? curl_easy_strerror(out->code) : "");
    strncpy(out->message, text, sizeof out->message - 1);
    curl_slist_free_all(list);
}
