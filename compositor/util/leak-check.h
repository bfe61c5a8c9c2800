/* Telling LeakSanitizer which allocations are wlroots 0.15's known leak, so that tests run
 * with no suppressions: a suppression needs every reported leak symbolized at exit, which
 * costs seconds a start in the emulated test guest, and a full (slow) unwind on every
 * malloc for the stacks to name the leak.
 *
 * The leak: wlroots 0.15 removes an output's wl_output and xdg-output globals, and the
 * seat's, with wlr_global_destroy_safe(), which frees them from a 5 s timer on the
 * display's event loop so that clients may still bind them meanwhile. When the display
 * goes before the timer fires (at every exit, and after a hotplug removal less than 5 s
 * before it), the timer's event source and its data are never freed. (Later wlroots free
 * them when the display goes.) wbc cannot reach them, so the calls that destroy outputs
 * and the display are wrapped: allocations made between wbc_leak_check_pause() and
 * wbc_leak_check_resume() on this thread are not leaks to LeakSanitizer. The price: a
 * leak of anything else allocated inside those calls would hide too; what runs there is
 * teardown (wlroots' and wbc's destroy handlers), which frees and does not allocate.
 *
 * The same pair is put around the GLES2 renderer's and the GBM allocator's creation
 * (shell/renderer.c, shell/server.c): Mesa loads its driver there and keeps allocations
 * it frees neither when wlroots gives a device up nor at exit (libgbm, the DRI driver,
 * libdrm's device list), which wbc cannot reach either. */
#ifndef WBC_LEAK_CHECK_H
#define WBC_LEAK_CHECK_H

#if defined(__SANITIZE_ADDRESS__)
#define WBC_LEAK_CHECK 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define WBC_LEAK_CHECK 1
#endif
#endif

#ifdef WBC_LEAK_CHECK
#include <sanitizer/lsan_interface.h>
static inline void wbc_leak_check_pause(void) { __lsan_disable(); }
static inline void wbc_leak_check_resume(void) { __lsan_enable(); }
#else
static inline void wbc_leak_check_pause(void) {}
static inline void wbc_leak_check_resume(void) {}
#endif

#endif
