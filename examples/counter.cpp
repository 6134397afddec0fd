// The course's lesson on Python's __call__, in C++: an object with operator() can be called
// like a function, which is why `model(x)` works on an nn::Module.
#include <cstdio>

class Counter {
 public:
  // Python: def __call__(self): self.count += 1; return self.count
  int operator()() { return ++count_; }
  int count() const { return count_; }

 private:
  int count_ = 0;
};

int main() {
  Counter counter;
  counter();
  counter();
  const int before = counter.count();
  const int third = counter();
  std::printf("called %d times; the third call returned %d\n", before, third);
}
