/*
 * Preloaded with libasan into the server (scripts/test --sanitize); not part of
 * privrisk. It works around a deadlock of the preloaded ASan runtime at process
 * start, before any privrisk code runs:
 *
 * postgres links libsystemd -> libgcrypt -> libgpg-error, whose constructor runs
 * before libasan's and calls bindtextdomain(), which holds glibc's _nl_state_lock
 * while it calls malloc(). That first malloc initializes ASan, whose start-up
 * looks for an optional Swift demangler with dlsym(RTLD_DEFAULT, "swift_demangle")
 * and then calls dlerror(); translating the "undefined symbol" message takes
 * _nl_state_lock again, and every postgres process (even `postgres -V`) hangs.
 *
 * With this symbol present the lookup succeeds, dlerror() has nothing to
 * translate, and start-up goes on. ASan only calls it for names that begin with
 * "_T" (Swift's mangling), which C and C++ names never do; it returns NULL, the
 * same as having no Swift demangler.
 */
#include <stddef.h>
#include <stdint.h>

char *swift_demangle(const char *name, size_t length, char *out, size_t *out_length, uint32_t flags);

char *
swift_demangle(const char *name, size_t length, char *out, size_t *out_length, uint32_t flags)
{
    (void) name;
    (void) length;
    (void) out;
    (void) out_length;
    (void) flags;
    return NULL;
}
