/*
 * Is the floor (durable_copy.c) really the fastest way to put a file's bytes on this machine's
 * disk? Times the same bytes written durably along five paths, taking turns round by round, and
 * prints the best of RUNS for each:
 *
 *   floor        copy_file_range, 8 MiB a step, writeback started after each, fsync (durable_copy.c)
 *   write+sfr    read into memory and write(), 8 MiB a step, writeback started after each, fsync:
 *                what Compositor's renders and packagings do with bytes they made themselves
 *   write,fsync  the same with no writeback until the one fsync at the end: a tool that leaves
 *                writeback to the kernel, then `sync`s (ffmpeg in the benchmarks)
 *   direct xN    O_DIRECT from memory, N threads each writing 8 MiB at a time (1, 2 and 4), fsync:
 *                no page cache at all, the device's own speed at queue depths 1 to 4
 *
 *   gcc -O2 -pthread -o /tmp/write_paths Benchmarks/render/write_paths.c
 *   /tmp/write_paths SOURCE OUTPUT [RUNS]      (OUTPUT is replaced and removed; default 5 runs)
 *
 * Every output is set aside first (fallocate, FALLOC_FL_KEEP_SIZE), as the floor and Compositor do.
 * Linux only. Warm the page cache first (`cat SOURCE > /dev/null`).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define STEP ((off_t)8 << 20)

static int source, output;
static off_t size;
static off_t next_offset;
static pthread_mutex_t next_lock = PTHREAD_MUTEX_INITIALIZER;

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static size_t step_at(off_t offset) { return (size_t)(size - offset < STEP ? size - offset : STEP); }

static void *aligned_step_buffer(void) {
    void *buffer;
    if (posix_memalign(&buffer, 4096, STEP) != 0) fail("posix_memalign");
    return buffer;
}

/* One O_DIRECT writer: takes the next 8 MiB step until none is left (the last padded to a
   whole page; the file is cut back to size afterwards). */
static void *direct_writer(void *unused) {
    (void)unused;
    char *buffer = aligned_step_buffer();
    for (;;) {
        pthread_mutex_lock(&next_lock);
        off_t offset = next_offset;
        next_offset += STEP;
        pthread_mutex_unlock(&next_lock);
        if (offset >= size) break;
        size_t count = step_at(offset), padded = (count + 4095) / 4096 * 4096;
        if (pread(source, buffer, count, offset) != (ssize_t)count) fail("pread");
        memset(buffer + count, 0, padded - count);
        if (pwrite(output, buffer, padded, offset) != (ssize_t)padded) fail("pwrite (O_DIRECT)");
    }
    free(buffer);
    return NULL;
}

enum path { FLOOR, WRITE_SFR, WRITE_FSYNC, DIRECT1, DIRECT2, DIRECT4, PATHS };
static const char *names[PATHS] = {"floor", "write+sfr", "write,fsync", "direct x1", "direct x2", "direct x4"};

static double run(enum path path, const char *name) {
    unlink(name);
    sync();
    double start = now();
    int direct = path >= DIRECT1;
    output = open(name, O_WRONLY | O_CREAT | O_EXCL | (direct ? O_DIRECT : 0), 0644);
    if (output < 0) fail(name);
    if (fallocate(output, FALLOC_FL_KEEP_SIZE, 0, size) != 0) fail("fallocate");
    if (path == FLOOR) {
        off_t in = 0, out = 0;
        while (in < size) {
            ssize_t copied = copy_file_range(source, &in, output, &out, step_at(in), 0);
            if (copied <= 0) fail("copy_file_range");
            sync_file_range(output, out - copied, copied, SYNC_FILE_RANGE_WRITE);
        }
    } else if (path == WRITE_SFR || path == WRITE_FSYNC) {
        char *buffer = aligned_step_buffer();
        for (off_t offset = 0; offset < size; offset += STEP) {
            size_t count = step_at(offset);
            if (pread(source, buffer, count, offset) != (ssize_t)count) fail("pread");
            if (pwrite(output, buffer, count, offset) != (ssize_t)count) fail("pwrite");
            if (path == WRITE_SFR) sync_file_range(output, offset, count, SYNC_FILE_RANGE_WRITE);
        }
        free(buffer);
    } else {
        int writers = path == DIRECT1 ? 1 : path == DIRECT2 ? 2 : 4;
        pthread_t threads[4];
        next_offset = 0;
        for (int i = 0; i < writers; i++) pthread_create(&threads[i], NULL, direct_writer, NULL);
        for (int i = 0; i < writers; i++) pthread_join(threads[i], NULL);
        if (ftruncate(output, size) != 0) fail("ftruncate");
    }
    if (fsync(output) != 0 || close(output) != 0) fail(name);
    return now() - start;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SOURCE OUTPUT [RUNS]\n", argv[0]);
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    struct stat status;
    source = open(argv[1], O_RDONLY);
    if (source < 0 || fstat(source, &status) != 0) fail(argv[1]);
    size = status.st_size;
    double best[PATHS];
    for (int path = 0; path < PATHS; path++) best[path] = 1e9;
    for (int round = 0; round < runs; round++) {
        for (int i = 0; i < PATHS; i++) {
            int path = (i + round) % PATHS;  /* a different path goes first each round */
            double seconds = run((enum path)path, argv[2]);
            if (seconds < best[path]) best[path] = seconds;
        }
    }
    unlink(argv[2]);
    printf("%.0f MB, best of %d, each path in turn\n", size / 1e6, runs);
    for (int path = 0; path < PATHS; path++)
        printf("  %-12s %6.3f s  %5.0f MB/s  %.2fx the floor\n", names[path], best[path], size / 1e6 / best[path],
               best[path] / best[FLOOR]);
    return 0;
}
