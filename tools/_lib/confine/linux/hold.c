/*
 * The session's network holder: a user and network namespace with only loopback, where
 * 127.0.0.1:PORT forwards every connection to toolhost's proxy on a unix socket.
 */
#include "confine.h"

#define HOLD_MAX 64
#define HOLD_BUF 16384
struct pipe_end {
  int from, to;
  char buf[HOLD_BUF];
  size_t len, off;
  int eof;
};

void hold(const char *socket_path) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (strlen(socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
    refuse("socket path too long");
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) fail("unshare (user, net)", NULL);
  map_identity(uid, gid);
  loopback_up();
  int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) fail("socket", NULL);
  struct sockaddr_in at = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  if (bind(listener, (struct sockaddr *)&at, sizeof at) < 0) fail("bind", NULL);
  if (listen(listener, 64) < 0) fail("listen", NULL);
  socklen_t len = sizeof at;
  getsockname(listener, (struct sockaddr *)&at, &len);
  struct stat netns;
  if (stat("/proc/self/ns/net", &netns) < 0) fail("stat netns", NULL);
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  signal(SIGPIPE, SIG_IGN);
  char buf[24];
  put(1, "ready ");
  put(1, decimal(ntohs(at.sin_port), buf));
  put(1, " ");
  put(1, decimal((unsigned long)netns.st_ino, buf));
  put(1, " ");
  put(1, decimal((unsigned long)getpid(), buf));
  put(1, "\n");

  /* Each accepted connection is two pipe_ends: client -> proxy and proxy -> client. */
  static struct pipe_end ends[HOLD_MAX * 2];
  int used[HOLD_MAX] = {0};
  struct pollfd fds[2 + HOLD_MAX * 2];
  for (;;) {
    int n = 0;
    fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    fds[n++] = (struct pollfd){.fd = listener, .events = POLLIN};
    for (int i = 0; i < HOLD_MAX; i++) {
      for (int d = 0; d < 2 && used[i]; d++) {
        struct pipe_end *e = &ends[i * 2 + d];
        short ev = 0;
        if (e->len == 0 && !e->eof) ev |= POLLIN;
        fds[n] = (struct pollfd){.fd = e->len ? e->to : e->from, .events = e->len ? POLLOUT : ev};
        n++;
      }
    }
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll", NULL);
    }
    if (fds[0].revents) {
      char c;
      if (read(0, &c, 1) <= 0) _exit(0); /* toolhost went away */
    }
    if (fds[1].revents & POLLIN) {
      int client = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      int slot = -1;
      for (int i = 0; i < HOLD_MAX; i++)
        if (!used[i]) {
          slot = i;
          break;
        }
      int upstream = -1;
      if (client >= 0 && slot >= 0) {
        upstream = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        memcpy(un.sun_path, socket_path, strlen(socket_path) + 1);
        if (upstream >= 0 && connect(upstream, (struct sockaddr *)&un, sizeof un) < 0 &&
            errno != EINPROGRESS) {
          close(upstream);
          upstream = -1;
        }
      }
      if (client >= 0 && (slot < 0 || upstream < 0)) close(client);
      if (client >= 0 && slot >= 0 && upstream >= 0) {
        used[slot] = 1;
        ends[slot * 2] = (struct pipe_end){.from = client, .to = upstream};
        ends[slot * 2 + 1] = (struct pipe_end){.from = upstream, .to = client};
      }
    }
    int k = 2;
    for (int i = 0; i < HOLD_MAX; i++) {
      if (!used[i]) continue;
      int closed = 0;
      for (int d = 0; d < 2; d++, k++) {
        struct pipe_end *e = &ends[i * 2 + d];
        short re = fds[k].revents;
        if (!re) continue;
        if (e->len) {
          ssize_t w = write(e->to, e->buf + e->off, e->len);
          if (w < 0 && errno != EAGAIN) closed = 1;
          if (w > 0) {
            e->off += (size_t)w;
            e->len -= (size_t)w;
            if (e->len == 0) e->off = 0;
          }
        } else {
          ssize_t r = read(e->from, e->buf, HOLD_BUF);
          if (r > 0)
            e->len = (size_t)r;
          else if (r == 0 || errno != EAGAIN) {
            e->eof = 1;
            shutdown(e->to, SHUT_WR);
          }
        }
      }
      struct pipe_end *a = &ends[i * 2], *b = &ends[i * 2 + 1];
      if (closed || (a->eof && b->eof && !a->len && !b->len)) {
        close(a->from);
        close(a->to);
        used[i] = 0;
      }
    }
  }
}

