/* How long one cache line takes to go from one CPU to another and back, measured again and
   again: on a virtual machine whose CPUs the host moves, the figure moves too (issue 19,
   bench/RESULTS.md session 11). Two threads pinned to CPUs 0 and 1 pass a counter back and
   forth through one line; each figure is the mean round trip over `trips` trips, one
   figure per `pause_ms` for `rounds` rounds.

       gcc -O2 -pthread bench/cache_line_pingpong.c -o /tmp/pingpong && /tmp/pingpong [rounds] [trips] [pause_ms]
*/
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long line[8] __attribute__((aligned(64)));
static long trips = 200000;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static int pin(int cpu) {
    cpu_set_t m;
    CPU_ZERO(&m);
    CPU_SET(cpu, &m);
    return pthread_setaffinity_np(pthread_self(), sizeof(m), &m);
}

/* The other side: answers each odd value with the next even one. */
static void *answer(void *arg) {
    long i, rounds = *(long *)arg, r;
    pin(1);
    for (r = 0; r < rounds; r++)
        for (i = 0; i < trips; i++) {
            while (line[0] != 2 * (r * trips + i) + 1) {}
            line[0] = 2 * (r * trips + i) + 2;
        }
    return NULL;
}

int main(int argc, char **argv) {
    long rounds = argc > 1 ? atol(argv[1]) : 30, r, i;
    long pause_ms = argc > 3 ? atol(argv[3]) : 300;
    pthread_t other;
    struct timespec pause;
    if (argc > 2) trips = atol(argv[2]);
    if (rounds < 1 || trips < 1 || pause_ms < 0) {
        fprintf(stderr, "usage: %s [rounds >= 1] [trips >= 1] [pause_ms >= 0]\n", argv[0]);
        return 2;
    }
    if (pin(0) != 0) {
        fprintf(stderr, "needs CPUs 0 and 1\n");
        return 2;
    }
    pause.tv_sec = pause_ms / 1000;
    pause.tv_nsec = (pause_ms % 1000) * 1000000L;
    pthread_create(&other, NULL, answer, &rounds);
    printf("round trip of one cache line between CPUs 0 and 1, ns:");
    for (r = 0; r < rounds; r++) {
        double t0 = now_s();
        for (i = 0; i < trips; i++) {
            line[0] = 2 * (r * trips + i) + 1;
            while (line[0] != 2 * (r * trips + i) + 2) {}
        }
        printf(" %.0f", (now_s() - t0) / trips * 1e9);
        fflush(stdout);
        nanosleep(&pause, NULL);
    }
    printf("\n");
    pthread_join(other, NULL);
    return 0;
}
