/*
 * toolhost-confine: applies toolhost's command sandbox to itself, then execs the command.
 *
 * toolhost runs on a multi-threaded runtime, where Landlock, no_new_privs and a new user
 * namespace cannot be applied to a child between fork and exec. So every process toolhost starts
 * under the sandbox starts this small single-threaded program first (the same pid: it execs), which
 *
 *   1. enters a user and mount namespace (its own, or the session's network holder's user and
 *      network namespace), so that paths inside writable roots can be made read-only (.git/hooks,
 *      .git/config, toolhost's files), credentials hidden under empty mounts, /dev/shm private;
 *   2. restricts itself with Landlock: read and execute everywhere, write only beneath the paths
 *      given, no signals or abstract sockets outside its domain, and (without a network
 *      namespace) TCP only to the proxy's port;
 *   3. sets no_new_privs, empties the capability bounding set, and (without a network namespace)
 *      installs a seccomp filter that refuses sockets other than AF_UNIX and the proxy's TCP;
 *   4. execs the command.
 *
 * Modes:
 *   toolhost-confine probe              prints what this kernel offers, one line of key=value
 *   toolhost-confine hold SOCKET        the session's network: a user and network namespace with
 *                                       only loopback, where 127.0.0.1:PORT forwards each
 *                                       connection to the unix socket SOCKET (toolhost's proxy);
 *                                       prints "ready PORT NETNS-INODE" and lives until stdin ends
 *   toolhost-confine run OPTIONS -- PROGRAM ARGS...
 *
 * Options of run (paths absolute):
 *   -w PATH    writable beneath PATH          -f PATH   writable file (an existing file)
 *   -R PATH    read-only bind over PATH       -p PATH   pin PATH (bind it onto itself: it can
 *   -h PATH    hide PATH (empty, unreadable)              then not be renamed or removed)
 *   -s         a private, writable /dev/shm   -k FD     keep FD open (others >= 3 are closed)
 *   -n none | join:PID:INODE | proxy:PORT | host
 *              none: a network namespace of its own (loopback only); join: the holder's;
 *              proxy: no namespace, TCP only to 127.0.0.1:PORT (Landlock and seccomp); host: as is
 *   -N         no namespaces at all (Landlock only): -R, -p, -h and -t are then refused
 *   -x         read-only everywhere except the -w and -f paths: already the default; kept for
 *              symmetry with the macOS profile
 * Exit status 125 and one line "toolhost-confine: ..." on stderr when the sandbox cannot be set up.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Landlock's ABI, spelled here: the build machine's headers may predate it. */
struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};
struct ll_path_beneath {
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__((packed));
struct ll_net_port {
  uint64_t allowed_access;
  uint64_t port;
};
#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2
#define LL_CREATE_RULESET_VERSION (1U << 0)

#define FS_EXECUTE (1ULL << 0)
#define FS_WRITE_FILE (1ULL << 1)
#define FS_READ_FILE (1ULL << 2)
#define FS_READ_DIR (1ULL << 3)
#define FS_REMOVE_DIR (1ULL << 4)
#define FS_REMOVE_FILE (1ULL << 5)
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_DIR (1ULL << 7)
#define FS_MAKE_REG (1ULL << 8)
#define FS_MAKE_SOCK (1ULL << 9)
#define FS_MAKE_FIFO (1ULL << 10)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_MAKE_SYM (1ULL << 12)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif

#define FAIL_STATUS 125
#define MAX_PATHS 256
#define MAX_KEEP 16

static void fail(const char *what, const char *path) {
  int saved = errno;
  if (path)
    dprintf(2, "toolhost-confine: %s %s: %s\n", what, path, strerror(saved));
  else
    dprintf(2, "toolhost-confine: %s: %s\n", what, strerror(saved));
  _exit(FAIL_STATUS);
}

static void refuse(const char *what) {
  dprintf(2, "toolhost-confine: %s\n", what);
  _exit(FAIL_STATUS);
}

static int landlock_abi(void) {
  long abi = syscall(__NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
}

/* The filesystem rights this ABI knows; a right it does not know cannot be handled. */
static uint64_t fs_rights(int abi) {
  uint64_t rights = (1ULL << 13) - 1; /* ABI 1: EXECUTE .. MAKE_SYM */
  if (abi >= 2) rights |= FS_REFER;
  if (abi >= 3) rights |= FS_TRUNCATE;
  if (abi >= 5) rights |= FS_IOCTL_DEV;
  return rights;
}

static int write_text(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = write(fd, text, strlen(text));
  close(fd);
  return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* After unshare(CLONE_NEWUSER): the same uid and gid inside as outside, nothing else mapped. */
static void map_identity(uid_t uid, gid_t gid) {
  char line[64];
  if (write_text("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) fail("setgroups", NULL);
  snprintf(line, sizeof line, "%u %u 1", uid, uid);
  if (write_text("/proc/self/uid_map", line) < 0) fail("uid_map", NULL);
  snprintf(line, sizeof line, "%u %u 1", gid, gid);
  if (write_text("/proc/self/gid_map", line) < 0) fail("gid_map", NULL);
}

static void loopback_up(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket for lo", NULL);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) fail("lo flags", NULL);
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) fail("lo up", NULL);
  close(fd);
}

/* Mount flags a remount must keep (the kernel refuses to clear locked ones). */
static unsigned long kept_flags(const char *path) {
  struct statvfs st;
  unsigned long flags = 0;
  if (statvfs(path, &st) < 0) return 0;
  if (st.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (st.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (st.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (st.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (st.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (st.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  return flags;
}

/*
 * Opens PATH without following a final symlink, as /proc/self/fd/N, so what is mounted on is the
 * entry the path names now, never where a link points. Returns -1 (errno ENOENT) when absent.
 */
static int open_entry(const char *path, char proc[static 32], struct stat *st) {
  int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return -1;
  if (fstat(fd, st) < 0) fail("stat", path);
  snprintf(proc, 32, "/proc/self/fd/%d", fd);
  return fd;
}

static void bind_readonly(const char *path) {
  char proc[32];
  struct stat st;
  int fd = open_entry(path, proc, &st);
  if (fd < 0) {
    if (errno == ENOENT) return;
    fail("open", path);
  }
  if (S_ISLNK(st.st_mode)) {
    errno = ELOOP;
    fail("cannot protect a symlink", path);
  }
  if (mount(proc, proc, NULL, MS_BIND | MS_REC, NULL) < 0) fail("bind", path);
  /* The new mount is now what the path names; remount it, by path, read-only. */
  if (mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | kept_flags(path), NULL) < 0)
    fail("remount read-only", path);
  close(fd);
}

static void pin(const char *path) {
  char proc[32];
  struct stat st;
  int fd = open_entry(path, proc, &st);
  if (fd < 0) {
    if (errno == ENOENT) return;
    fail("open", path);
  }
  if (S_ISLNK(st.st_mode)) {
    errno = ELOOP;
    fail("cannot pin a symlink", path);
  }
  if (mount(proc, proc, NULL, MS_BIND | MS_REC, NULL) < 0) fail("pin", path);
  close(fd);
}

static void hide(const char *path) {
  struct stat st;
  /* A link is hidden where it points (reading through it is what must fail). */
  if (stat(path, &st) < 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == EACCES) return;
    fail("stat", path);
  }
  if (S_ISDIR(st.st_mode)) {
    if (mount("toolhost-hidden", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
              "size=4k,nr_inodes=2,mode=000") < 0)
      fail("hide", path);
  } else {
    if (mount("/dev/null", path, NULL, MS_BIND, NULL) < 0) fail("hide", path);
    if (mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL) < 0)
      fail("hide (read-only)", path);
  }
}

/* A fresh /dev/shm: the machine's is shared with every process of the user. */
static void private_shm(void) {
  if (mount("toolhost-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0 &&
      errno != ENOENT)
    fail("private /dev/shm", NULL);
}

static void add_path_rule(int ruleset, const char *path, uint64_t access) {
  struct ll_path_beneath rule = {.allowed_access = access};
  rule.parent_fd = open(path, O_PATH | O_CLOEXEC);
  if (rule.parent_fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == ENOTDIR) return;
    fail("open for landlock", path);
  }
  struct stat st;
  if (fstat(rule.parent_fd, &st) < 0) fail("stat", path);
  /* Directory-only rights are refused on a file. */
  if (!S_ISDIR(st.st_mode)) access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
  rule.allowed_access = access;
  if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
    fail("landlock rule", path);
  close(rule.parent_fd);
}

/* seccomp: sockets only of AF_UNIX (and AF_NETLINK), plus TCP when allow_tcp; no io_uring. */
static void socket_filter(int allow_tcp) {
#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif
#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define IS(value, yes, no) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (value), (yes), (no))
#define DENY BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA))
#define ALLOW BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
  struct sock_filter filter[] = {
    LOAD(arch),
    IS(ARCH, 1, 0),
    DENY, /* another ABI (32-bit calls on x86_64) could make sockets past this filter */
    LOAD(nr),
    IS(__NR_io_uring_setup, 0, 1),
    DENY, /* io_uring can open sockets without socket(2) */
    IS(__NR_socket, 1, 0),
    ALLOW,
    LOAD(args[0]), /* the family (the low half of the first argument) */
    IS(AF_UNIX, 0, 1),
    ALLOW,
    IS(AF_NETLINK, 0, 1),
    ALLOW,
    /* 13: without TCP, the filter ends here */
    IS(AF_INET, 1, 0),
    IS(AF_INET6, 0, 4),
    LOAD(args[1]),
    BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf), /* the type without SOCK_CLOEXEC/NONBLOCK */
    IS(SOCK_STREAM, 0, 1),
    ALLOW,
    DENY,
  };
  if (!allow_tcp) filter[13] = (struct sock_filter)DENY;
  struct sock_fprog prog = {.len = allow_tcp ? sizeof filter / sizeof filter[0] : 14, .filter = filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) fail("seccomp", NULL);
}

static void drop_capabilities(void) {
  /* Without CAP_SETPCAP this fails, and then there is nothing to drop (not root, no namespace). */
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
}

static void probe(void) {
  int abi = landlock_abi();
  int userns = 0, netns = 0;
  pid_t pid = fork();
  if (pid == 0) {
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) _exit(1);
    map_identity(uid, gid);
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) _exit(2);
    if (unshare(CLONE_NEWNET) < 0) _exit(3);
    _exit(0);
  }
  int status = 0;
  if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    userns = code == 0 || code == 3;
    netns = code == 0;
  }
  printf("landlock=%d userns=%d netns=%d\n", abi, userns, netns);
}

/* ---- the session's network holder ---- */

#define HOLD_MAX 64
#define HOLD_BUF 16384
struct pipe_end {
  int from, to;
  char buf[HOLD_BUF];
  size_t len, off;
  int eof;
};

static void hold(const char *socket_path) {
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (strlen(socket_path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) refuse("socket path too long");
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
  printf("ready %u %lu %d\n", ntohs(at.sin_port), (unsigned long)netns.st_ino, (int)getpid());
  fflush(stdout);

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
        if (!used[i]) { slot = i; break; }
      int upstream = -1;
      if (client >= 0 && slot >= 0) {
        upstream = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        struct sockaddr_un un = {.sun_family = AF_UNIX};
        strcpy(un.sun_path, socket_path);
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
            e->off += w;
            e->len -= w;
            if (e->len == 0) e->off = 0;
          }
        } else {
          ssize_t r = read(e->from, e->buf, HOLD_BUF);
          if (r > 0) e->len = r;
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

/* ---- run ---- */

int main(int argc, char **argv) {
  if (argc >= 2 && strcmp(argv[1], "probe") == 0) {
    probe();
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "hold") == 0) {
    hold(argv[2]);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "run") != 0) refuse("usage: toolhost-confine probe | hold SOCKET | run OPTIONS -- PROGRAM ARGS...");

  const char *writable[MAX_PATHS], *files[MAX_PATHS], *readonly[MAX_PATHS], *pins[MAX_PATHS],
      *hidden[MAX_PATHS];
  int nw = 0, nf = 0, nr = 0, np = 0, nh = 0, keep[MAX_KEEP], nk = 0;
  const char *net = "host";
  int no_namespaces = 0, shm = 0, i = 2;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) { i++; break; }
    if (strcmp(a, "-N") == 0) { no_namespaces = 1; continue; }
    if (strcmp(a, "-x") == 0) continue;
    if (strcmp(a, "-s") == 0) { shm = 1; continue; }
    if (a[0] != '-' || a[1] == 0 || a[2] != 0 || i + 1 >= argc) refuse("bad option");
    const char *v = argv[++i];
    if (a[1] != 'n' && a[1] != 'k' && v[0] != '/') refuse("paths must be absolute");
    int full = 0;
    switch (a[1]) {
      case 'w': full = nw >= MAX_PATHS; if (!full) writable[nw++] = v; break;
      case 'f': full = nf >= MAX_PATHS; if (!full) files[nf++] = v; break;
      case 'R': full = nr >= MAX_PATHS; if (!full) readonly[nr++] = v; break;
      case 'p': full = np >= MAX_PATHS; if (!full) pins[np++] = v; break;
      case 'h': full = nh >= MAX_PATHS; if (!full) hidden[nh++] = v; break;
      case 'n': net = v; break;
      case 'k': full = nk >= MAX_KEEP; if (!full) keep[nk++] = atoi(v); break;
      default: refuse("bad option");
    }
    if (full) refuse("too many paths");
  }
  if (i >= argc) refuse("no program to run");

  int abi = landlock_abi();
  if (abi < 1) {
    errno = ENOSYS;
    fail("landlock is not available", NULL);
  }
  int netns_none = strcmp(net, "none") == 0;
  int join = strncmp(net, "join:", 5) == 0;
  int proxy_port = strncmp(net, "proxy:", 6) == 0 ? atoi(net + 6) : 0;
  if (!netns_none && !join && !proxy_port && strcmp(net, "host") != 0) refuse("bad -n");
  if (no_namespaces && (nr || np || nh || shm || netns_none || join))
    refuse("-N cannot protect paths, hide them, give a private /dev/shm or a network namespace");

  uid_t uid = getuid();
  gid_t gid = getgid();
  if (!no_namespaces) {
    if (join) {
      char *end;
      long pid = strtol(net + 5, &end, 10);
      unsigned long inode = *end == ':' ? strtoul(end + 1, NULL, 10) : 0;
      char path[64];
      snprintf(path, sizeof path, "/proc/%ld/ns/user", pid);
      int userfd = open(path, O_RDONLY | O_CLOEXEC);
      snprintf(path, sizeof path, "/proc/%ld/ns/net", pid);
      int netfd = open(path, O_RDONLY | O_CLOEXEC);
      struct stat st;
      if (userfd < 0 || netfd < 0 || fstat(netfd, &st) < 0) fail("open the session's network", NULL);
      if (st.st_ino != inode) refuse("the session's network is gone");
      if (setns(userfd, CLONE_NEWUSER) < 0) fail("enter the session's user namespace", NULL);
      if (setns(netfd, CLONE_NEWNET) < 0) fail("enter the session's network", NULL);
      if (unshare(CLONE_NEWNS) < 0) fail("unshare (mount)", NULL);
      close(userfd);
      close(netfd);
    } else {
      if (unshare(CLONE_NEWUSER | CLONE_NEWNS | (netns_none ? CLONE_NEWNET : 0)) < 0)
        fail("unshare (user, mount)", NULL);
      map_identity(uid, gid);
      if (netns_none) loopback_up();
    }
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) fail("make mounts private", NULL);
    for (int j = 0; j < np; j++) pin(pins[j]);
    for (int j = 0; j < nr; j++) bind_readonly(readonly[j]);
    for (int j = 0; j < nh; j++) hide(hidden[j]);
    if (shm) private_shm();
  }

  uint64_t handled = fs_rights(abi);
  uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  uint64_t write = handled & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK);
  struct ll_ruleset_attr attr = {.handled_access_fs = handled};
  size_t attr_size = 8;
  if (abi >= 4 && (proxy_port || (!netns_none && !join && strcmp(net, "host") != 0))) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    attr_size = 16;
  }
  if (abi >= 6) {
    attr.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET;
    attr_size = sizeof attr;
  }
  int ruleset = syscall(__NR_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) fail("landlock ruleset", NULL);
  add_path_rule(ruleset, "/", read | (handled & FS_IOCTL_DEV ? 0 : 0));
  add_path_rule(ruleset, "/dev", read | (handled & FS_IOCTL_DEV));
  static const char *devices[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/tty",
                                  "/dev/ptmx", "/dev/random", "/dev/urandom"};
  for (size_t j = 0; j < sizeof devices / sizeof *devices; j++)
    add_path_rule(ruleset, devices[j], FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV)));
  add_path_rule(ruleset, "/dev/pts", read | FS_WRITE_FILE | (handled & FS_IOCTL_DEV));
  /* /dev/shm: private under namespaces; shared (but needed by POSIX semaphores) without. */
  if (shm || no_namespaces) add_path_rule(ruleset, "/dev/shm", write);
  for (int j = 0; j < nw; j++) add_path_rule(ruleset, writable[j], write);
  for (int j = 0; j < nf; j++) add_path_rule(ruleset, files[j], write);
  if (proxy_port && attr.handled_access_net) {
    struct ll_net_port rule = {.allowed_access = NET_CONNECT_TCP, .port = (uint64_t)proxy_port};
    if (syscall(__NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &rule, 0) < 0)
      fail("landlock port rule", NULL);
  }

  drop_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("no_new_privs", NULL);
  if (syscall(__NR_landlock_restrict_self, ruleset, 0) < 0) fail("landlock", NULL);
  close(ruleset);
  /* Without a network namespace of its own, sockets are what seccomp lets through. */
  if (no_namespaces || strcmp(net, "host") != 0) {
    if (!netns_none && !join) socket_filter(proxy_port != 0);
  }

  /* Descriptors toolhost did not mean to pass (say, a held directory) are closed on exec. */
  int from = 3;
  for (int j = 0; j <= nk; j++) {
    int until = j < nk ? keep[j] : -1;
    if (j < nk && until < from) continue;
    syscall(__NR_close_range, from, j < nk ? until - 1 : ~0U, CLOSE_RANGE_CLOEXEC);
    from = j < nk ? until + 1 : from;
  }
  execvp(argv[i], argv + i);
  int saved = errno;
  dprintf(2, "toolhost-confine: cannot run %s: %s\n", argv[i], strerror(saved));
  _exit(saved == ENOENT ? 127 : 126);
}
