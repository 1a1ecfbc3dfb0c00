// args.h: a command line for the option-parser tests (test_common.cpp, test_outputs.cpp):
// "prog" then the given words, as argc/argv, owning their storage; string options point into
// it, as into a program's argv, so an Args must outlive what kit_parse stored.
#ifndef KIT_TEST_ARGS_H
#define KIT_TEST_ARGS_H
#include <initializer_list>
#include <string>
#include <vector>

namespace kit_test {
struct Args {
  std::vector<std::string> s;
  std::vector<char *> p;
  explicit Args(std::initializer_list<const char *> a) : Args(std::vector<const char *>(a)) {}
  explicit Args(const std::vector<const char *> &a) {
    s.push_back("prog");
    for (const char *x : a) s.push_back(x);
    for (auto &x : s) p.push_back(&x[0]);
    p.push_back(nullptr);
  }
  int argc() const { return (int)s.size(); }
  char **argv() { return p.data(); }
};
}  // namespace kit_test
#endif
