/*
 * The fastest durable copy of a file this machine makes, to compare a render with: the bytes
 * copied in the kernel (copy_file_range, 8 MiB a step, writeback started after each), into a new
 * file whose size was set aside first (fallocate, FALLOC_FL_KEEP_SIZE), then fsync. The same
 * moves a render of byte-heavy MP4 sources makes, without reading or writing any MP4 structure.
 *
 *   gcc -O2 -o /tmp/durable_copy Benchmarks/render/durable_copy.c
 *   /tmp/durable_copy SOURCE OUTPUT [RUNS]     prints each run's seconds (OUTPUT is replaced)
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
        fprintf(stderr, "usage: %s SOURCE OUTPUT [RUNS]\n", argv[0]);
        return 2;
    }
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    int source = open(argv[1], O_RDONLY);
    struct stat status;
    if (source < 0 || fstat(source, &status) != 0) {
        perror(argv[1]);
        return 1;
    }
    const off_t step = 8 << 20;
    for (int run = 0; run < runs; run++) {
        unlink(argv[2]);
        sync();
        double start = now();
        int output = open(argv[2], O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (output < 0 || fallocate(output, FALLOC_FL_KEEP_SIZE, 0, status.st_size) != 0) {
            perror(argv[2]);
            return 1;
        }
        off_t in = 0, out = 0;
        while (in < status.st_size) {
            off_t count = status.st_size - in < step ? status.st_size - in : step;
            ssize_t copied = copy_file_range(source, &in, output, &out, (size_t)count, 0);
            if (copied <= 0) {
                perror("copy_file_range");
                return 1;
            }
            sync_file_range(output, out - copied, copied, SYNC_FILE_RANGE_WRITE);
        }
        if (fsync(output) != 0 || close(output) != 0) {
            perror(argv[2]);
            return 1;
        }
        printf("%.3f s  %.0f MB/s\n", now() - start, status.st_size / 1e6 / (now() - start));
    }
    unlink(argv[2]);
    return 0;
}
