#include "isolated_run.h"

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <sstream>

namespace edgefold::conformance {
namespace {

// Wire format, one field per line: verdict, data_sets, max_abs_error, stage, message...
std::string Encode(const CaseOutcome& o) {
  std::ostringstream s;
  s.precision(17);
  s << static_cast<int>(o.verdict) << "\n"
    << o.data_sets << "\n"
    << o.max_abs_error << "\n"
    << o.stage << "\n"
    << o.message;
  return s.str();
}

CaseOutcome Decode(const std::string& text) {
  CaseOutcome o;
  std::istringstream s(text);
  int verdict = static_cast<int>(Verdict::kFail);
  s >> verdict >> o.data_sets >> o.max_abs_error;
  s.ignore(1);
  std::getline(s, o.stage);
  std::getline(s, o.message, '\0');
  o.verdict = static_cast<Verdict>(verdict);
  return o;
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string ReadAll(int fd) {
  std::string data;
  char buf[4096];
  for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) data.append(buf, static_cast<size_t>(n));
  return data;
}

}  // namespace

CaseOutcome RunCaseIsolated(const std::string& case_dir, const std::string& case_id,
                            const RunOptions& options, unsigned timeout_seconds) {
  int fds[2];
  if (pipe(fds) != 0) return RunCase(case_dir, case_id, options);
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return RunCase(case_dir, case_id, options);
  }
  if (pid == 0) {
    close(fds[0]);
    alarm(timeout_seconds);
    WriteAll(fds[1], Encode(RunCase(case_dir, case_id, options)));
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  const std::string text = ReadAll(fds[0]);
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (WIFSIGNALED(status)) {
    CaseOutcome o;
    o.stage = "crash";
    const int sig = WTERMSIG(status);
    o.message = sig == SIGALRM ? "timed out after " + std::to_string(timeout_seconds) + " s"
                               : std::string("killed by signal ") + std::to_string(sig) + " (" +
                                     strsignal(sig) + ")";
    return o;
  }
  if (text.empty()) {
    CaseOutcome o;
    o.stage = "crash";
    o.message =
        "child exited with status " + std::to_string(WEXITSTATUS(status)) + " before reporting";
    return o;
  }
  return Decode(text);
}

}  // namespace edgefold::conformance
