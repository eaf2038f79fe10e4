//===- Launcher.cpp - rlx-run --ranks: one process per rank ---------------===//
//
// Part of the RLX-MLIR project, under the Apache License v2.0 with LLVM
// Exceptions. See the LICENSE file for license information.
//
//===----------------------------------------------------------------------===//
//
// `--ranks N` makes rlx-run (and rlx-run-aot) a launcher on one host, for
// the CUDA target's collectives over NCCL where no MPI launcher is at hand:
// the process starts N copies of itself with the same arguments less
// --ranks, each with RLX_RANK, RLX_WORLD_SIZE, RLX_LOCAL_RANK (its GPU) and
// RLX_COMM_DIR (a fresh directory where the ranks meet,
// lib/Runtime/Comm/Nccl.cpp), waits for them, and exits with the first
// failure's status after stopping the others: a rank that waits in a
// collective for a failed one would wait forever.
//
//===----------------------------------------------------------------------===//

#include "Runner.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace rlxrun;

namespace {

/// argv without --ranks and its value (--ranks N, --ranks=N, -ranks=N).
std::vector<std::string> argumentsWithoutRanks(int argc, char **argv) {
  std::vector<std::string> kept;
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    llvm::StringRef name = arg.ltrim('-');
    if (arg.starts_with("-") && name == "ranks") {
      ++i;
      continue;
    }
    if (arg.starts_with("-") && name.starts_with("ranks="))
      continue;
    kept.push_back(arg.str());
  }
  return kept;
}

/// Sends `signal` to every child still running.
void signalAll(const std::vector<pid_t> &children,
               const std::vector<bool> &done, int signal) {
  for (size_t i = 0; i < children.size(); ++i)
    if (!done[i])
      ::kill(children[i], signal);
}

} // namespace

int rlxrun::launchRanks(int argc, char **argv, unsigned ranks) {
  if (std::getenv("RLX_RANK"))
    fatal("--ranks in a process that --ranks started: each rank runs the "
          "graph itself");
  if (ranks > 1024)
    fatal("--ranks " + std::to_string(ranks) + ": at most 1024 ranks");
  llvm::SmallString<128> dir;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("rlx-ranks", dir))
    fatal("--ranks: cannot create a directory for the ranks to meet in: " +
          error.message());
  std::vector<std::string> arguments = argumentsWithoutRanks(argc, argv);
  std::string self = "/proc/self/exe";
  std::vector<pid_t> children;
  for (unsigned rank = 0; rank < ranks; ++rank) {
    pid_t pid = ::fork();
    if (pid < 0) {
      std::vector<bool> done(children.size(), false);
      signalAll(children, done, SIGTERM);
      fatal(std::string("--ranks: fork failed: ") + std::strerror(errno));
    }
    if (pid == 0) {
      std::string r = std::to_string(rank), n = std::to_string(ranks);
      ::setenv("RLX_RANK", r.c_str(), 1);
      ::setenv("RLX_LOCAL_RANK", r.c_str(), 1);
      ::setenv("RLX_WORLD_SIZE", n.c_str(), 1);
      ::setenv("RLX_COMM_DIR", dir.c_str(), 1);
      std::vector<char *> childArgv;
      childArgv.push_back(argv[0]);
      for (std::string &arg : arguments)
        childArgv.push_back(arg.data());
      childArgv.push_back(nullptr);
      ::execv(self.c_str(), childArgv.data());
      std::fprintf(stderr, "%s: --ranks: cannot start rank %u: %s\n", toolName,
                   rank, std::strerror(errno));
      std::_Exit(127);
    }
    children.push_back(pid);
  }

  // Wait for every rank; the first failure stops the others (SIGTERM, then
  // SIGKILL after a grace period) and gives the exit status.
  std::vector<bool> done(ranks, false);
  int status = 0;
  unsigned running = ranks;
  std::optional<std::chrono::steady_clock::time_point> stopping;
  while (running > 0) {
    int childStatus = 0;
    pid_t pid = ::waitpid(-1, &childStatus, stopping ? WNOHANG : 0);
    if (pid < 0 && errno == EINTR)
      continue;
    if (pid < 0)
      break;
    if (pid == 0) {
      if (std::chrono::steady_clock::now() - *stopping >
          std::chrono::seconds(5))
        signalAll(children, done, SIGKILL);
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      continue;
    }
    size_t rank = 0;
    while (rank < children.size() && children[rank] != pid)
      ++rank;
    if (rank == children.size())
      continue;
    done[rank] = true;
    --running;
    int code = WIFEXITED(childStatus)     ? WEXITSTATUS(childStatus)
               : WIFSIGNALED(childStatus) ? 128 + WTERMSIG(childStatus)
                                          : 1;
    if (code != 0 && status == 0) {
      status = code;
      if (running > 0) {
        llvm::errs() << toolName << ": rank " << rank << " failed (status "
                     << code << "); stopping the other ranks\n";
        signalAll(children, done, SIGTERM);
        stopping = std::chrono::steady_clock::now();
      }
    }
  }
  llvm::sys::fs::remove_directories(dir);
  return status;
}
