// One HTTP request at a time through libcurl's easy interface, for habitto-webdav.
// URLSession on Linux keeps a socket's write source after a request is sent, so a server
// that accepts and never answers keeps a core busy; the easy interface waits in poll(2).
// libcurl is the library Foundation's networking already needs at run time; this file
// declares the few functions and option numbers it uses (libcurl's stable ABI), so that no
// development package is needed to build it.
#ifndef HABITTO_HTTP_TRANSFER_H
#define HABITTO_HTTP_TRANSFER_H

#include <stddef.h>

/// What a transfer hands to its caller: each header line as it arrives, each piece of the
/// body. Returning a number other than `length` stops the transfer (`aborted` is then set).
typedef size_t (*habitto_http_sink)(void *context, const char *bytes, size_t length);

/// One request. `headers` are complete "Name: value" lines. `body` is sent only when
/// `has_body` is 1. Redirects are never followed; no compressed encoding is asked for or
/// decoded; `time_limit_ms` bounds the whole exchange, connection included.
typedef struct {
    const char *url;
    const char *method;
    const char *const *headers;
    size_t header_count;
    const unsigned char *body;
    size_t body_length;
    int has_body;
    long time_limit_ms;
    /// A file of CA certificates to trust instead of the system's, or NULL.
    const char *ca_file;
    /// Answers that announce a longer body are refused before it is read.
    long long max_body;
    habitto_http_sink on_header;
    habitto_http_sink on_body;
    void *context;
} habitto_http_request;

/// How a transfer ended: `code` is libcurl's result (0 for an answer), `status` the HTTP
/// status when there was one, `message` libcurl's words for a failure.
typedef struct {
    int code;
    long status;
    int os_errno;
    char message[256];
} habitto_http_result;

/// libcurl's result numbers that callers tell apart.
enum {
    HABITTO_HTTP_OK = 0,
    HABITTO_HTTP_UNSUPPORTED_PROTOCOL = 1,
    HABITTO_HTTP_URL_MALFORMAT = 3,
    HABITTO_HTTP_COULDNT_RESOLVE_PROXY = 5,
    HABITTO_HTTP_COULDNT_RESOLVE_HOST = 6,
    HABITTO_HTTP_COULDNT_CONNECT = 7,
    HABITTO_HTTP_WEIRD_SERVER_REPLY = 8,
    HABITTO_HTTP_WRITE_ERROR = 23,
    HABITTO_HTTP_OPERATION_TIMEDOUT = 28,
    HABITTO_HTTP_SSL_CONNECT_ERROR = 35,
    HABITTO_HTTP_ABORTED_BY_CALLBACK = 42,
    HABITTO_HTTP_GOT_NOTHING = 52,
    HABITTO_HTTP_SEND_ERROR = 55,
    HABITTO_HTTP_RECV_ERROR = 56,
    HABITTO_HTTP_SSL_CERTPROBLEM = 58,
    HABITTO_HTTP_SSL_CIPHER = 59,
    HABITTO_HTTP_PEER_FAILED_VERIFICATION = 60,
    HABITTO_HTTP_BAD_CONTENT_ENCODING = 61,
    HABITTO_HTTP_FILESIZE_EXCEEDED = 63,
    HABITTO_HTTP_SSL_CACERT_BADFILE = 77,
    HABITTO_HTTP_SSL_ISSUER_ERROR = 83,
    HABITTO_HTTP_SSL_PINNEDPUBKEYNOTMATCH = 90,
    HABITTO_HTTP_SSL_INVALIDCERTSTATUS = 91,
};

/// Prepares libcurl; call once, before any other thread starts. 0 on success.
int habitto_http_global_init(void);

/// A connection holder that keeps its connection alive between requests, or NULL.
void *habitto_http_open(void);

/// Makes one request with `handle` and waits for its end.
void habitto_http_perform(void *handle, const habitto_http_request *request, habitto_http_result *result);

/// Closes the handle and its connection.
void habitto_http_close(void *handle);

#endif
