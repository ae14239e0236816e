/*
 * The session's network holder: a user and network namespace with only loopback, where
 * 127.0.0.1:PORT forwards every connection to toolhost's proxy on a unix socket, and each
 * forwarded port (a machine's loopback service `sandbox.allow_network` lists, `localhost:5432`)
 * forwards 127.0.0.1:THAT_PORT to a unix socket of its own, which toolhost connects to the service.
 */
#include "confine.h"

#define HOLD_MAX 64
#define HOLD_BUF 16384
#define HOLD_FORWARDS 16
struct pipe_end {
  int from, to;
  char buf[HOLD_BUF];
  size_t len, off;
  int eof;
};

/* A listener inside the namespace and the unix socket its connections go to. */
struct listener {
  int fd;
  const char *socket_path;
};

static int listen_on(long port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket", NULL);
  int on = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  struct sockaddr_in at = {.sin_family = AF_INET,
                           .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                           .sin_port = htons((unsigned short)port)};
  if (bind(fd, (struct sockaddr *)&at, sizeof at) < 0) fail("bind", NULL);
  if (listen(fd, 64) < 0) fail("listen", NULL);
  return fd;
}

static void check_path(const char *path) {
  if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path))
    refuse("socket path too long");
}

/* `forwards` are PORT=SOCKET: 127.0.0.1:PORT inside goes to SOCKET. */
void hold(const char *socket_path, int nforwards, char **forwards) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  check_path(socket_path);
  if (nforwards > HOLD_FORWARDS) refuse("too many forwarded ports");
  static struct listener listeners[1 + HOLD_FORWARDS];
  int nlisteners = 1 + nforwards;
  listeners[0].socket_path = socket_path;
  long ports[HOLD_FORWARDS];
  for (int i = 0; i < nforwards; i++) {
    char *eq = strchr(forwards[i], '=');
    if (!eq) refuse("a forward is PORT=SOCKET");
    *eq = 0;
    ports[i] = number(forwards[i]);
    if (ports[i] < 1 || ports[i] > 65535) refuse("a forwarded port is 1 to 65535");
    check_path(eq + 1);
    listeners[1 + i].socket_path = eq + 1;
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) < 0) fail("unshare (user, net)", NULL);
  map_identity(uid, gid);
  loopback_up();
  listeners[0].fd = listen_on(0);
  for (int i = 0; i < nforwards; i++) listeners[1 + i].fd = listen_on(ports[i]);
  struct sockaddr_in at;
  socklen_t len = sizeof at;
  getsockname(listeners[0].fd, (struct sockaddr *)&at, &len);
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
  /* Which slots have entries in this round's fds: one taken after the poll has none yet. */
  int polled[HOLD_MAX] = {0};
  struct pollfd fds[1 + 1 + HOLD_FORWARDS + HOLD_MAX * 2];
  for (;;) {
    int n = 0;
    fds[n++] = (struct pollfd){.fd = 0, .events = POLLIN};
    for (int l = 0; l < nlisteners; l++)
      fds[n++] = (struct pollfd){.fd = listeners[l].fd, .events = POLLIN};
    for (int i = 0; i < HOLD_MAX; i++) {
      polled[i] = used[i];
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
    for (int l = 0; l < nlisteners; l++) {
      if (!(fds[1 + l].revents & POLLIN)) continue;
      const char *target = listeners[l].socket_path;
      int client = accept4(listeners[l].fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
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
        memcpy(un.sun_path, target, strlen(target) + 1);
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
    int k = 1 + nlisteners;
    for (int i = 0; i < HOLD_MAX; i++) {
      if (!used[i] || !polled[i]) continue;
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

