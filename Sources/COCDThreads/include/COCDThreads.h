// Where threads run: the few scheduling calls OpenCoreData's helper thread needs, which Swift's
// Glibc module does not show (they are GNU extensions). Elsewhere than Linux they do nothing.
#ifndef COCD_THREADS_H
#define COCD_THREADS_H

#include <stddef.h>
#include <stdint.h>

/// The CPU the calling thread is running on, or -1 where that cannot be known.
int ocd_current_cpu(void);

/// The calling thread's id, for `ocd_set_thread_affinity`; 0 where threads have none.
intptr_t ocd_current_thread_id(void);

/// The size of a CPU set, for the buffers below; 0 where there are none.
size_t ocd_cpu_set_size(void);

/// Reads the set of CPUs the calling thread may run on into `set` (`ocd_cpu_set_size()` bytes).
/// Returns how many there are, or -1 where that cannot be known.
int ocd_get_affinity(void *set);

/// Makes `set` (`ocd_cpu_set_size()` bytes) hold `cpu` alone.
void ocd_cpu_set_only(void *set, int cpu);

/// Lets the calling thread run on every CPU its process may use (a thread starts with the CPUs
/// of the thread that made it). Returns 0 when done.
int ocd_allow_every_cpu(void);

/// Lets the thread `thread` (0: the calling one) run on the CPUs of `set` except `excluded` (-1:
/// none excluded). Returns 0 when done with `excluded` left out; -1 otherwise: `excluded` was the
/// set's only CPU or not in it (`thread` then has the whole set), or the call failed (nothing
/// changed).
int ocd_set_affinity(intptr_t thread, const void *set, int excluded);

#endif
