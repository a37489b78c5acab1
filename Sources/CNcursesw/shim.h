#ifndef HABITTO_CNCURSESW_SHIM_H
#define HABITTO_CNCURSESW_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <ncursesw/curses.h>

/* Accessors for C globals and function-like macros that Swift cannot import, or that
 * Swift 6 refuses to reference because they are mutable globals. They hold no state. */

/** The process's standard input and output streams (for newterm). */
static inline FILE *habitto_stdin(void) { return stdin; }
static inline FILE *habitto_stdout(void) { return stdout; }

/** The current screen's standard window (valid after newterm/set_term). */
static inline WINDOW *habitto_stdscr(void) { return stdscr; }

/** The number of colours and colour pairs (valid after start_color). */
static inline int habitto_colors(void) { return COLORS; }
static inline int habitto_color_pairs(void) { return COLOR_PAIRS; }

/** Video attributes. */
static inline attr_t habitto_a_normal(void) { return A_NORMAL; }
static inline attr_t habitto_a_bold(void) { return A_BOLD; }
static inline attr_t habitto_a_underline(void) { return A_UNDERLINE; }
static inline attr_t habitto_a_reverse(void) { return A_REVERSE; }
static inline attr_t habitto_a_dim(void) { return A_DIM; }

/** The most wide characters one cell (cchar_t) holds: a spacing character and the
 * non-spacing characters that combine with it. */
static inline int habitto_ccharw_max(void) { return CCHARW_MAX; }

/** The columns the C library (and so ncurses) gives a wide character in the current
 * locale: 0, 1, 2, or -1 when it is not printable. (Declared here because the system
 * headers hide it unless _XOPEN_SOURCE is defined before their first inclusion.) */
extern int wcwidth(wchar_t c);
static inline int habitto_wcwidth(wchar_t c) { return wcwidth(c); }

/** The locale's character set name, e.g. "UTF-8" or "ANSI_X3.4-1968". */
static inline const char *habitto_codeset(void) { return nl_langinfo(CODESET); }

#endif
