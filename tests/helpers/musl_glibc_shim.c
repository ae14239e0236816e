/*
 * Lets Debian's libstdc++ (built for glibc, shipped as libstdc++_pic.a) be linked into a
 * libstdc++.so.6 that runs on musl, for the test of the linux-x64-musl binary: Alpine's
 * `apk add libstdc++` has no Debian counterpart. These are the glibc-only symbols that
 * libstdc++ and libgcc refer to, each reduced to what a test run needs.
 * No headers: musl's are not installed with Debian's musl package, only its libc.
 */
typedef unsigned long size_t;

long getrandom(void *buffer, size_t length, unsigned flags);
size_t strftime_l(char *s, size_t n, const char *format, const void *tm, void *locale);
void abort(void);

/* 0: never take the single-threaded shortcuts; always correct. */
char __libc_single_threaded = 0;

/* thread_local destructors are not run at thread exit; fine for a test process. */
int __cxa_thread_atexit_impl(void (*destructor)(void *), void *object, void *dso) {
  (void)destructor;
  (void)object;
  (void)dso;
  return 0;
}

/* std::random_device */
unsigned arc4random(void) {
  unsigned value = 0;
  while (getrandom(&value, sizeof value, 0) != (long)sizeof value) {
  }
  return value;
}

size_t __strftime_l(char *s, size_t n, const char *format, const void *tm, void *locale) {
  return strftime_l(s, n, format, tm, locale);
}

/* Unwinding finds no frames: a C++ exception would end the process. The server throws none. */
int _dl_find_object(void *pc, void *result) {
  (void)pc;
  (void)result;
  return -1;
}

/* istream::ignore(long), which the pic archive leaves out; nothing here calls it. */
void _ZNSi6ignoreEl(void) { abort(); }
void _ZNSt13basic_istreamIwSt11char_traitsIwEE6ignoreEl(void) { abort(); }
