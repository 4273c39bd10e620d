#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "COCDThreads.h"

#if defined(__linux__)
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int ocd_current_cpu(void) {
    return sched_getcpu();
}

intptr_t ocd_current_thread_id(void) {
    return (intptr_t)syscall(SYS_gettid);
}

size_t ocd_cpu_set_size(void) {
    return sizeof(cpu_set_t);
}

int ocd_get_affinity(void *set) {
    cpu_set_t *cpus = (cpu_set_t *)set;
    CPU_ZERO(cpus);
    if (sched_getaffinity(0, sizeof(cpu_set_t), cpus) != 0) return -1;
    return CPU_COUNT(cpus);
}

void ocd_cpu_set_only(void *set, int cpu) {
    cpu_set_t *cpus = (cpu_set_t *)set;
    CPU_ZERO(cpus);
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, cpus);
}

int ocd_allow_every_cpu(void) {
    // Every CPU asked for: the kernel keeps those the process's CPU set (its cgroup) allows.
    cpu_set_t cpus;
    memset(&cpus, 0xFF, sizeof cpus);
    return sched_setaffinity(0, sizeof cpus, &cpus) == 0 ? 0 : -1;
}

int ocd_set_affinity(intptr_t thread, const void *set, int excluded) {
    cpu_set_t cpus;
    memcpy(&cpus, set, sizeof cpus);
    int leftOut = 0;
    if (excluded >= 0 && excluded < CPU_SETSIZE && CPU_ISSET(excluded, &cpus) && CPU_COUNT(&cpus) > 1) {
        CPU_CLR(excluded, &cpus);
        leftOut = 1;
    }
    if (sched_setaffinity((pid_t)thread, sizeof cpus, &cpus) != 0) return -1;
    return leftOut ? 0 : -1;
}
#else
int ocd_current_cpu(void) { return -1; }
intptr_t ocd_current_thread_id(void) { return 0; }
size_t ocd_cpu_set_size(void) { return 0; }
int ocd_get_affinity(void *set) { (void)set; return -1; }
void ocd_cpu_set_only(void *set, int cpu) { (void)set; (void)cpu; }
int ocd_allow_every_cpu(void) { return -1; }
int ocd_set_affinity(intptr_t thread, const void *set, int excluded) { (void)thread; (void)set; (void)excluded; return -1; }
#endif
