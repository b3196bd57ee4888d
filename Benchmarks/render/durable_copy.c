/*
 * The fastest durable copy of a file this machine makes, to compare a render with: the bytes
 * copied in the kernel (copy_file_range, 8 MiB a step, writeback started after each), into a new
 * file whose size was set aside first (fallocate, FALLOC_FL_KEEP_SIZE), then fsync. The same
 * moves a render of byte-heavy MP4 sources makes, without reading or writing any MP4 structure.
 *
 *   gcc -O2 -o /tmp/durable_copy Benchmarks/render/durable_copy.c
 *   /tmp/durable_copy SOURCE OUTPUT [RUNS [SOURCE...]]   prints each run's seconds (OUTPUT is
 *                                                        replaced, and left); sources after RUNS
 *                                                        follow the first in OUTPUT
 *
 * Each source starts on a 4 KiB page of the output (a hole before it when the one before ended
 * inside a page), as a render pads its long copies: copy_file_range at the source's page phase
 * runs about 1.4 times as fast (Benchmarks/render/copy_phase.py).
 *
 * Linux only. Warm the page cache first (`cat SOURCE > /dev/null`), as Benchmarks/render does.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s SOURCE OUTPUT [RUNS [SOURCE...]]\n", argv[0]);
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    int count = argc > 4 ? argc - 3 : 1;
    int *sources = calloc((size_t)count, sizeof(int));
    off_t *sizes = calloc((size_t)count, sizeof(off_t));
    off_t total = 0;
    for (int i = 0; i < count; i++) {
        const char *path = i == 0 ? argv[1] : argv[3 + i];
        struct stat status;
        sources[i] = open(path, O_RDONLY);
        if (sources[i] < 0 || fstat(sources[i], &status) != 0) {
            perror(path);
            return 1;
        }
        sizes[i] = status.st_size;
        total = (total + 4095) / 4096 * 4096 + status.st_size;
    }
    const off_t step = 8 << 20;
    for (int run = 0; run < runs; run++) {
        unlink(argv[2]);
        sync();
        double start = now();
        int output = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (output < 0 || (total > 0 && fallocate(output, FALLOC_FL_KEEP_SIZE, 0, total) != 0)) {
            perror(argv[2]);
            return 1;
        }
        off_t out = 0;
        for (int i = 0; i < count; i++) {
            off_t in = 0;
            out = (out + 4095) / 4096 * 4096;
            while (in < sizes[i]) {
                off_t left = sizes[i] - in;
                ssize_t copied = copy_file_range(sources[i], &in, output, &out, (size_t)(left < step ? left : step), 0);
                if (copied <= 0) {
                    perror("copy_file_range");
                    return 1;
                }
                sync_file_range(output, out - copied, copied, SYNC_FILE_RANGE_WRITE);
            }
        }
        if (fsync(output) != 0 || close(output) != 0) {
            perror(argv[2]);
            return 1;
        }
        double seconds = now() - start;
        printf("%.3f s  %.0f MB/s\n", seconds, total / 1e6 / seconds);
    }
    return 0;
}
