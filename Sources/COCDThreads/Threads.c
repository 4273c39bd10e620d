#define _GNU_SOURCE
#include "COCDThreads.h"

#if defined(__linux__)
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

int ocd_current_cpu(void) {
    return sched_getcpu();
}

int ocd_allowed_cpu_count(void) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    return CPU_COUNT(&allowed);
}

long ocd_current_thread_id(void) {
    return (long)syscall(SYS_gettid);
}

int ocd_keep_thread_off_cpu(long thread, int cpu) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    if (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) {
        (void)sched_setaffinity((pid_t)thread, sizeof allowed, &allowed);
        return -1;
    }
    CPU_CLR(cpu, &allowed);
    return sched_setaffinity((pid_t)thread, sizeof allowed, &allowed) == 0 ? 0 : -1;
}
#else
int ocd_current_cpu(void) { return -1; }
int ocd_allowed_cpu_count(void) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return -1;
    return CPU_COUNT(&allowed);
}

long ocd_current_thread_id(void) { return 0; }
int ocd_keep_thread_off_cpu(long thread, int cpu) { (void)thread; (void)cpu; return -1; }
#endif
