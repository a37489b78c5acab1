#ifndef HABITTO_CNCURSESW_SHIM_H
#define HABITTO_CNCURSESW_SHIM_H
#define _XOPEN_SOURCE_EXTENDED 1
#define NCURSES_WIDECHAR 1
#include <locale.h>
#include <langinfo.h>
#include <stdio.h>
#include <ncursesw/curses.h>

/* Accessors for C globals and function-like macros that Swift cannot import, or that
 * Swift 6 refuses to reference because they are mutable globals. They hold no state.
 *
 * The library itself is not linked: HabitTerminal loads it with dlopen when the UI starts
 * (so that the commands that need no UI do not load it), and calls it through
 * this table of the functions it uses, filled with dlsym. The types are the header's own. */
typedef struct {
    __typeof__(&newterm) newterm;
    __typeof__(&set_term) set_term;
    __typeof__(&delscreen) delscreen;
    __typeof__(&endwin) endwin;
    __typeof__(&def_prog_mode) def_prog_mode;
    __typeof__(&tigetstr) tigetstr;
    __typeof__(&cbreak) cbreak;
    __typeof__(&noecho) noecho;
    __typeof__(&nonl) nonl;
    __typeof__(&intrflush) intrflush;
    __typeof__(&keypad) keypad;
    __typeof__(&nodelay) nodelay;
    __typeof__(&leaveok) leaveok;
    __typeof__(&clearok) clearok;
    __typeof__(&curs_set) curs_set;
    __typeof__(&set_escdelay) set_escdelay;
    __typeof__(&key_defined) key_defined;
    __typeof__(&define_key) define_key;
    __typeof__(&has_colors) has_colors;
    __typeof__(&start_color) start_color;
    __typeof__(&use_default_colors) use_default_colors;
    __typeof__(&init_pair) init_pair;
    __typeof__(&getmaxx) getmaxx;
    __typeof__(&getmaxy) getmaxy;
    __typeof__(&werase) werase;
    __typeof__(&wrefresh) wrefresh;
    __typeof__(&setcchar) setcchar;
    __typeof__(&mvwadd_wch) mvwadd_wch;
    __typeof__(&wget_wch) wget_wch;
    /* The library's globals (their addresses). */
    WINDOW **stdscr;
    int *colors;
    int *color_pairs;
} habitto_curses;

/** The process's standard input and output streams (for newterm). */
static inline FILE *habitto_stdin(void) { return stdin; }
static inline FILE *habitto_stdout(void) { return stdout; }

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
