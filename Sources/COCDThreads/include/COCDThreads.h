// Where threads run: the few scheduling calls OpenCoreData's helper thread needs, which Swift's
// Glibc module does not show (they are GNU extensions). Elsewhere than Linux they do nothing.
#ifndef COCD_THREADS_H
#define COCD_THREADS_H

/// The CPU the calling thread is running on, or -1 where that cannot be known.
int ocd_current_cpu(void);

/// How many CPUs the calling thread may run on, or -1 where that cannot be known.
int ocd_allowed_cpu_count(void);

/// The calling thread's id, for `ocd_keep_thread_off_cpu`; 0 where threads have none.
long ocd_current_thread_id(void);

/// Lets the thread `thread` run on every CPU the calling thread may use except `cpu`. Returns 0
/// when done; -1 when not (fewer than two such CPUs, `cpu` not among them, or no such call on this
/// system), having then given `thread` every CPU the calling thread may use where it can.
int ocd_keep_thread_off_cpu(long thread, int cpu);

#endif
