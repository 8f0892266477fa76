// Running part of a test inside a private network namespace, where nftables may drop packets
// at random (real loss on a real socket) without touching the machine's own network.
//
// run_in_private_net forks; the child unshares its network namespace (root or a user namespace
// is needed), brings its loopback up, checks that nft works when asked to, runs `body` and
// sends its result (trivially copyable) back through a pipe. Only the child's network view
// changes, so the rest of the suite is untouched; nothing in the namespace can reach any
// address outside it. Where the namespace or nft is refused the run says so, and the test
// reports itself skipped (never passed):
//
//     const auto run = test::run_in_private_net<Result>([](Result& r) { return measure(r); });
//     if (!run.skipped.empty()) GTEST_SKIP() << run.skipped;
//     ASSERT_TRUE(run.failed.empty()) << run.failed;
#pragma once

#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

namespace vantage::test {

template <class Result>
struct PrivateNetRun {
    Result result{};
    std::string skipped;  // why the namespace could not be had (the test skips)
    std::string failed;   // why the child did not report (the test fails)
};

inline bool bring_loopback_up() {
    const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
    if (fd < 0) return false;
    ifreq request{};
    std::strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
    bool ok = ::ioctl(fd, SIOCGIFFLAGS, &request) == 0;
    request.ifr_flags = static_cast<short>(request.ifr_flags | IFF_UP);
    ok = ok && ::ioctl(fd, SIOCSIFFLAGS, &request) == 0;
    ::close(fd);
    return ok;
}

// body(Result&) runs in the child and returns 0 when the result is complete; kSkipNoNft from
// the body also means "nft refused the rule".
inline constexpr int kSkipNoNamespace = 77;
inline constexpr int kSkipNoNft = 78;

template <class Result, class Body>
PrivateNetRun<Result> run_in_private_net(Body body, bool needs_nft = true) {
    static_assert(std::is_trivially_copyable_v<Result>, "the result crosses a pipe as bytes");
    PrivateNetRun<Result> run;
    int fds[2];
    if (::pipe(fds) != 0) {
        run.failed = "pipe() failed";
        return run;
    }
    const pid_t child = ::fork();
    if (child < 0) {
        ::close(fds[0]);
        ::close(fds[1]);
        run.failed = "fork() failed";
        return run;
    }
    if (child == 0) {
        ::close(fds[0]);
        if (::unshare(CLONE_NEWNET) != 0 || !bring_loopback_up()) ::_exit(kSkipNoNamespace);
        if (needs_nft && std::system("nft list tables >/dev/null 2>&1") != 0) ::_exit(kSkipNoNft);
        Result result{};
        const int status = body(result);
        const bool written = ::write(fds[1], &result, sizeof result) == static_cast<ssize_t>(sizeof result);
        ::_exit(status != 0 ? status : (written ? 0 : 1));
    }
    ::close(fds[1]);
    const ssize_t got = ::read(fds[0], &run.result, sizeof run.result);
    ::close(fds[0]);
    int status = 0;
    if (::waitpid(child, &status, 0) != child || !WIFEXITED(status)) {
        run.failed = "the namespace's child did not exit normally";
        return run;
    }
    const int code = WEXITSTATUS(status);
    if (code == kSkipNoNamespace) {
        run.skipped = "unshare -n is not permitted here";
    } else if (code == kSkipNoNft) {
        run.skipped = "nft is missing or refused the rule";
    } else if (code != 0) {
        run.failed = "the namespace's child exited with status " + std::to_string(code);
    } else if (got != static_cast<ssize_t>(sizeof run.result)) {
        run.failed = "the namespace's child sent no result";
    }
    return run;
}

}  // namespace vantage::test
