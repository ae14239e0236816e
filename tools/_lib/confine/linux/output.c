/* Messages without stdio: a static binary of a few tens of kilobytes starts faster. */
#include "confine.h"

void put(int fd, const char *text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(fd, text, left);
    if (n <= 0) return;
    text += n;
    left -= (size_t)n;
  }
}

/* `value` in decimal, written at the end of buf[24]; returns where it starts. */
char *decimal(unsigned long value, char buf[24]) {
  char *at = buf + 23;
  *at = 0;
  do *--at = (char)('0' + value % 10);
  while ((value /= 10) != 0);
  return at;
}

/* A whole decimal number, or -1. */
long number(const char *text) {
  long value = 0;
  if (*text == 0) return -1;
  for (; *text; text++) {
    if (*text < '0' || *text > '9' || value > 100000000000L) return -1;
    value = value * 10 + (*text - '0');
  }
  return value;
}

void fail(const char *what, const char *path) {
  const char *why = strerror(errno);
  put(2, "toolhost-confine: ");
  put(2, what);
  if (path) {
    put(2, " ");
    put(2, path);
  }
  put(2, ": ");
  put(2, why);
  put(2, "\n");
  _exit(FAIL_STATUS);
}

void refuse(const char *what) {
  put(2, "toolhost-confine: ");
  put(2, what);
  put(2, "\n");
  _exit(FAIL_STATUS);
}

