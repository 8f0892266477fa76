// What this process holds now, from Linux's /proc (threads, resident memory) and getrusage (CPU
// time): the load and capacity tools report them, and the leak tests compare them before and
// after peers come and go. Each reads 0 where /proc cannot be read.
#pragma once

#include <sys/resource.h>

#include <cstdio>

namespace vantage::room {

// Threads of this process now.
inline int process_threads() {
    int n = 0;
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            if (std::sscanf(line, "Threads: %d", &n) == 1) break;
        }
        std::fclose(f);
    }
    return n;
}

// Resident memory now, MiB.
inline double process_rss_mib() {
    long kib = 0;
    if (std::FILE* f = std::fopen("/proc/self/status", "r")) {
        char line[256];
        while (std::fgets(line, sizeof line, f)) {
            if (std::sscanf(line, "VmRSS: %ld", &kib) == 1) break;
        }
        std::fclose(f);
    }
    return static_cast<double>(kib) / 1024.0;
}

// User and system CPU time this process has used so far, ms.
inline double process_cpu_ms() {
    rusage u{};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000.0 +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000.0;
}

}  // namespace vantage::room
