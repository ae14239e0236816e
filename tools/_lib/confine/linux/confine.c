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
 *   3. empties its capabilities, sets no_new_privs, and (without a network namespace) installs a
 *      seccomp filter that refuses sockets other than AF_UNIX (and the proxy's TCP);
 *   4. execs the command.
 *
 * Modes:
 *   toolhost-confine probe              prints what this kernel offers, one line of key=value
 *   toolhost-confine hold SOCKET        the session's network: a user and network namespace with
 *                                       only loopback, where 127.0.0.1:PORT forwards each
 *                                       connection to the unix socket SOCKET (toolhost's proxy);
 *                                       prints "ready PORT NETNS-INODE PID" and lives until
 *                                       stdin ends
 *   toolhost-confine run OPTIONS -- PROGRAM ARGS...
 *
 * Options of run (paths absolute):
 *   -w PATH    writable beneath PATH          -f PATH   writable file (an existing file)
 *   -R PATH    read-only bind over PATH       -p PATH   pin PATH (bound onto itself: it can
 *   -h PATH    hide PATH (empty, unreadable)              then not be renamed or removed)
 *   -s         a private, writable /dev/shm   -k FD     keep FD open (others >= 3 are closed)
 *   -0 NAME    the program's argv[0]
 *   -n none | join:PID:INODE | proxy:PORT | host
 *              none: a network namespace of its own (loopback only), or with -N no socket but
 *              AF_UNIX; join: the holder's; proxy: no namespace, TCP only to 127.0.0.1:PORT
 *              (Landlock and seccomp); host: as is
 *   -N         no namespaces at all (Landlock only): -R, -p, -h, -s and join are then refused
 * Exit status 125 and one line "toolhost-confine: ..." on stderr when the sandbox cannot be set up.
 *
 * No stdio: the program stays a few tens of kilobytes, so starting it costs little.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

/* Kernel ABI spelled here: musl ships no kernel headers, and the build machine's may be old. */
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
#define FS_MAKE_CHAR (1ULL << 6)
#define FS_MAKE_BLOCK (1ULL << 11)
#define FS_REFER (1ULL << 13)
#define FS_TRUNCATE (1ULL << 14)
#define FS_IOCTL_DEV (1ULL << 15)
#define NET_BIND_TCP (1ULL << 0)
#define NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define SCOPE_SIGNAL (1ULL << 1)

/* Syscalls from 424 on have one number on every architecture. */
#define NR_open_tree 428
#define NR_move_mount 429
#define NR_close_range 436
#define NR_mount_setattr 442
#define NR_landlock_create_ruleset 444
#define NR_landlock_add_rule 445
#define NR_landlock_restrict_self 446
#define OPEN_TREE_CLONE 1
#define TREE_RECURSIVE 0x8000 /* AT_RECURSIVE */
#define TREE_EMPTY_PATH 0x1000 /* AT_EMPTY_PATH */
#define MOVE_F_EMPTY_PATH 0x4
#define MOVE_T_EMPTY_PATH 0x40
#define ATTR_RDONLY 0x1
#define CLOSE_RANGE_CLOEXEC_ (1U << 2)
struct mount_attr_ {
  uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* seccomp and classic BPF. */
#define SECCOMP_SET_MODE_FILTER_ 1
#define RET_ALLOW 0x7fff0000U
#define RET_ERRNO 0x00050000U
#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_JGE_K 0x35
#define BPF_AND_K 0x54
#define BPF_RET_K 0x06
#if defined(__x86_64__)
#define AUDIT_ARCH 0xc000003eU
#define X32_BIT 0x40000000U /* x32 calls share the arch but set this bit */
#elif defined(__aarch64__)
#define AUDIT_ARCH 0xc00000b7U
#else
#error "toolhost-confine is built for x86_64 and aarch64"
#endif
struct bpf_insn_ {
  uint16_t code;
  uint8_t jt, jf;
  uint32_t k;
};
struct bpf_prog_ {
  unsigned short len;
  struct bpf_insn_ *filter;
};
/* Offsets in struct seccomp_data; args are 64-bit, read as their low half (little-endian). */
#define SD_NR 0
#define SD_ARCH 4
#define SD_ARG0 16
#define SD_ARG1 24

#define FAIL_STATUS 125
#define MAX_PATHS 512
#define MAX_KEEP 16

/* ---- output without stdio ---- */

static void put(int fd, const char *text) {
  size_t left = strlen(text);
  while (left > 0) {
    ssize_t n = write(fd, text, left);
    if (n <= 0) return;
    text += n;
    left -= (size_t)n;
  }
}

/* `value` in decimal, written at the end of buf[24]; returns where it starts. */
static char *decimal(unsigned long value, char buf[24]) {
  char *at = buf + 23;
  *at = 0;
  do *--at = (char)('0' + value % 10);
  while ((value /= 10) != 0);
  return at;
}

/* A whole decimal number, or -1. */
static long number(const char *text) {
  long value = 0;
  if (*text == 0) return -1;
  for (; *text; text++) {
    if (*text < '0' || *text > '9' || value > 100000000000L) return -1;
    value = value * 10 + (*text - '0');
  }
  return value;
}

static void fail(const char *what, const char *path) {
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

static void refuse(const char *what) {
  put(2, "toolhost-confine: ");
  put(2, what);
  put(2, "\n");
  _exit(FAIL_STATUS);
}

/* ---- namespaces and mounts ---- */

static int landlock_abi(void) {
  long abi = syscall(NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
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

/* "ID ID 1": the same id inside as outside, nothing else mapped. */
static void map_one(const char *file, unsigned long id) {
  char buf[24], line[64];
  const char *text = decimal(id, buf);
  size_t n = strlen(text);
  memcpy(line, text, n);
  line[n] = ' ';
  memcpy(line + n + 1, text, n);
  memcpy(line + 2 * n + 1, " 1", 3);
  if (write_text(file, line) < 0) fail("write", file);
}

/* After unshare(CLONE_NEWUSER): the same uid and gid inside as outside. */
static void map_identity(uid_t uid, gid_t gid) {
  if (write_text("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) fail("setgroups", NULL);
  map_one("/proc/self/uid_map", uid);
  map_one("/proc/self/gid_map", gid);
}

static void loopback_up(void) {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) fail("socket for lo", NULL);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  memcpy(ifr.ifr_name, "lo", 3);
  if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0) fail("lo flags", NULL);
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0) fail("lo up", NULL);
  close(fd);
}

/*
 * A detached copy of the mount tree at the entry `path` names now, never following a final
 * symlink; -1 when absent. Read-only when asked, before it is attached anywhere, so there is
 * no moment when the copy is writable and no second lookup of the name.
 */
static int copy_tree(const char *path, int readonly, int *target) {
  int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return -1;
    fail("open", path);
  }
  struct stat st;
  if (fstat(fd, &st) < 0) fail("stat", path);
  if (S_ISLNK(st.st_mode)) {
    errno = ELOOP;
    fail("cannot protect a symlink", path);
  }
  int tree = (int)syscall(NR_open_tree, fd, "",
                          OPEN_TREE_CLONE | O_CLOEXEC | TREE_EMPTY_PATH | TREE_RECURSIVE);
  if (tree < 0) fail("copy the mount at", path);
  if (readonly) {
    struct mount_attr_ attr = {.attr_set = ATTR_RDONLY};
    if (syscall(NR_mount_setattr, tree, "", TREE_EMPTY_PATH | TREE_RECURSIVE, &attr, sizeof attr) <
        0)
      fail("make read-only", path);
  }
  *target = fd;
  return tree;
}

/* Mounts `tree` on the entry `target` is open on (the entry itself, not a name). */
static void attach(int tree, int target, const char *path) {
  if (syscall(NR_move_mount, tree, "", target, "", MOVE_F_EMPTY_PATH | MOVE_T_EMPTY_PATH) < 0)
    fail("mount over", path);
  close(tree);
  close(target);
}

/* Read-only (EROFS) for everything beneath PATH, whatever Landlock allows there. */
static void bind_readonly(const char *path) {
  int target;
  int tree = copy_tree(path, 1, &target);
  if (tree >= 0) attach(tree, target, path);
}

/* PATH bound onto itself: a mount point cannot be renamed or removed (EBUSY). */
static void pin(const char *path) {
  int target;
  int tree = copy_tree(path, 0, &target);
  if (tree >= 0) attach(tree, target, path);
}

/*
 * Hidden entries are read-only bind mounts of an empty directory or an empty file, both mode 000,
 * made on a tmpfs mounted for a moment on /tmp and then unmounted: the binds stay, and nothing in
 * the namespace can reach the tmpfs to change their mode.
 */
#define STAGE "/tmp"
static void stage(void) {
  if (mount("toolhost-hidden", STAGE, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            "size=4k,nr_inodes=4,mode=0700") < 0)
    fail("mount a tmpfs on", STAGE);
  int dir = open(STAGE, O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) fail("open", STAGE);
  int file = openat(dir, "f", O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0);
  if (file < 0 || mkdirat(dir, "d", 0) < 0 || fchmodat(dir, "d", 0, 0) < 0) fail("stage", STAGE);
  close(file);
  close(dir);
}

static void unstage(void) {
  if (umount2(STAGE, MNT_DETACH) < 0) fail("unmount", STAGE);
}

/*
 * A link is hidden where it points: reading through it is what must fail. Every entry is opened
 * before the tmpfs covers /tmp (a socket of an agent lives there), then mounted over by its
 * descriptor.
 */
static void hide_all(const char **paths, int count) {
  static int targets[MAX_PATHS], dirs[MAX_PATHS];
  int found = 0;
  for (int j = 0; j < count; j++) {
    targets[j] = open(paths[j], O_PATH | O_CLOEXEC);
    struct stat st;
    if (targets[j] < 0) {
      if (errno == ENOENT || errno == ENOTDIR || errno == EACCES || errno == ELOOP) continue;
      fail("open", paths[j]);
    }
    if (fstat(targets[j], &st) < 0) fail("stat", paths[j]);
    dirs[j] = S_ISDIR(st.st_mode);
    found++;
  }
  if (found == 0) return;
  stage();
  for (int j = 0; j < count; j++) {
    if (targets[j] < 0) continue;
    int empty;
    int tree = copy_tree(dirs[j] ? STAGE "/d" : STAGE "/f", 1, &empty);
    close(empty);
    attach(tree, targets[j], paths[j]);
  }
  unstage();
}

/* A fresh /dev/shm: the machine's is shared with every process of the user. */
static void private_shm(void) {
  if (mount("toolhost-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0 &&
      errno != ENOENT)
    fail("private /dev/shm", NULL);
}

/* ---- Landlock, capabilities, seccomp ---- */

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
  if (!S_ISDIR(st.st_mode))
    access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
  rule.allowed_access = access;
  if (syscall(NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
    fail("landlock rule", path);
  close(rule.parent_fd);
}

#define LOAD(offset) {BPF_LD_W_ABS, 0, 0, (offset)}
#define IS(value, yes, no) {BPF_JEQ_K, (yes), (no), (value)}
#define DENY {BPF_RET_K, 0, 0, RET_ERRNO | EACCES}
#define ALLOW {BPF_RET_K, 0, 0, RET_ALLOW}

/* seccomp: sockets only of AF_UNIX (and AF_NETLINK), plus TCP when allow_tcp; no io_uring. */
static void socket_filter(int allow_tcp) {
  struct bpf_insn_ filter[] = {
    LOAD(SD_ARCH),
    IS(AUDIT_ARCH, 1, 0),
    DENY, /* another ABI (32-bit calls on x86_64) could make sockets past this filter */
    LOAD(SD_NR),
#ifdef X32_BIT
    {BPF_JGE_K, 0, 1, X32_BIT},
    DENY, /* x32 calls: the same arch, other numbers */
#else
    IS(0xffffffffU, 0, 1), /* keeps the offsets below the same on every architecture */
    DENY,
#endif
    IS(__NR_io_uring_setup, 0, 1),
    DENY, /* io_uring can open sockets without socket(2) */
    IS(__NR_socket, 1, 0),
    ALLOW,
    LOAD(SD_ARG0), /* the family */
    IS(AF_UNIX, 0, 1),
    ALLOW,
    IS(AF_NETLINK, 0, 1),
    ALLOW,
    /* 15: without TCP, the filter ends here */
    IS(AF_INET, 1, 0),
    IS(AF_INET6, 0, 4),
    LOAD(SD_ARG1),
    {BPF_AND_K, 0, 0, 0xf}, /* the type without SOCK_CLOEXEC/NONBLOCK */
    IS(SOCK_STREAM, 0, 1),
    ALLOW,
    DENY,
  };
  const unsigned short end = 15;
  if (!allow_tcp) filter[end] = (struct bpf_insn_)DENY;
  struct bpf_prog_ prog = {.len = allow_tcp ? sizeof filter / sizeof filter[0] : end + 1,
                           .filter = filter};
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER_, 0, &prog) < 0) fail("seccomp", NULL);
}

/*
 * No capability survives into the command, root included: the bounding set and the ambient set
 * are emptied (so exec grants nothing, even to uid 0), then the process's own sets.
 */
static void drop_capabilities(void) {
  for (int cap = 0; cap <= 63; cap++) {
    if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL) break;
  }
  prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
  struct {
    uint32_t version;
    int pid;
  } header = {0x20080522, 0}; /* _LINUX_CAPABILITY_VERSION_3 */
  struct {
    uint32_t effective, permitted, inheritable;
  } data[2] = {{0, 0, 0}, {0, 0, 0}};
  if (syscall(__NR_capset, &header, data) < 0) fail("drop capabilities", NULL);
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
  char buf[24];
  put(1, "landlock=");
  put(1, decimal((unsigned long)abi, buf));
  put(1, userns ? " userns=1" : " userns=0");
  put(1, netns ? " netns=1\n" : " netns=0\n");
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

/* ---- run ---- */

/* Enters the holder's user and network namespaces ("PID:INODE"; the inode guards a reused pid). */
static void join_network(const char *spec) {
  const char *colon = strchr(spec, ':');
  char pid[24];
  if (!colon || colon - spec >= (long)sizeof pid) refuse("bad -n join:PID:INODE");
  memcpy(pid, spec, (size_t)(colon - spec));
  pid[colon - spec] = 0;
  long inode = number(colon + 1);
  if (number(pid) <= 0 || inode < 0) refuse("bad -n join:PID:INODE");
  char path[64] = "/proc/";
  strcat(path, pid);
  size_t at = strlen(path);
  strcpy(path + at, "/ns/user");
  int userfd = open(path, O_RDONLY | O_CLOEXEC);
  strcpy(path + at, "/ns/net");
  int netfd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat st;
  if (userfd < 0 || netfd < 0 || fstat(netfd, &st) < 0) fail("open the session's network", NULL);
  if ((long)st.st_ino != inode) refuse("the session's network is gone");
  if (setns(userfd, CLONE_NEWUSER) < 0) fail("enter the session's user namespace", NULL);
  if (setns(netfd, CLONE_NEWNET) < 0) fail("enter the session's network", NULL);
  if (unshare(CLONE_NEWNS) < 0) fail("unshare (mount)", NULL);
  close(userfd);
  close(netfd);
}

/* Marks every descriptor from 3 on close-on-exec, except those in keep (sorted here). */
static void close_on_exec(int *keep, int nk) {
  for (int a = 1; a < nk; a++)
    for (int b = a; b > 0 && keep[b - 1] > keep[b]; b--) {
      int t = keep[b];
      keep[b] = keep[b - 1];
      keep[b - 1] = t;
    }
  unsigned int from = 3;
  for (int j = 0; j < nk; j++) {
    if (keep[j] < (int)from) continue;
    if ((unsigned int)keep[j] > from)
      syscall(NR_close_range, from, (unsigned int)keep[j] - 1, CLOSE_RANGE_CLOEXEC_);
    from = (unsigned int)keep[j] + 1;
  }
  syscall(NR_close_range, from, ~0U, CLOSE_RANGE_CLOEXEC_);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "probe") == 0) {
    probe();
    return 0;
  }
  if (argc == 3 && strcmp(argv[1], "hold") == 0) {
    hold(argv[2]);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "run") != 0)
    refuse("usage: toolhost-confine probe | hold SOCKET | run OPTIONS -- PROGRAM ARGS...");

  static const char *writable[MAX_PATHS], *files[MAX_PATHS], *readonly[MAX_PATHS],
      *pins[MAX_PATHS], *hidden[MAX_PATHS];
  int nw = 0, nf = 0, nr = 0, np = 0, nh = 0, keep[MAX_KEEP], nk = 0;
  const char *net = "host", *argv0 = NULL;
  int no_namespaces = 0, shm = 0, i = 2;
  for (; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    }
    if (strcmp(a, "-N") == 0) {
      no_namespaces = 1;
      continue;
    }
    if (strcmp(a, "-s") == 0) {
      shm = 1;
      continue;
    }
    if (a[0] != '-' || a[1] == 0 || a[2] != 0 || i + 1 >= argc) refuse("bad option");
    const char *v = argv[++i];
    if (strchr("wfRph", a[1]) && v[0] != '/') refuse("paths must be absolute");
    int full = 0;
    switch (a[1]) {
      case 'w': full = nw >= MAX_PATHS; if (!full) writable[nw++] = v; break;
      case 'f': full = nf >= MAX_PATHS; if (!full) files[nf++] = v; break;
      case 'R': full = nr >= MAX_PATHS; if (!full) readonly[nr++] = v; break;
      case 'p': full = np >= MAX_PATHS; if (!full) pins[np++] = v; break;
      case 'h': full = nh >= MAX_PATHS; if (!full) hidden[nh++] = v; break;
      case 'n': net = v; break;
      case '0': argv0 = v; break;
      case 'k':
        full = nk >= MAX_KEEP;
        if (!full && (keep[nk++] = (int)number(v)) < 3) refuse("bad -k");
        break;
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
  int net_none = strcmp(net, "none") == 0;
  int join = strncmp(net, "join:", 5) == 0;
  long proxy_port = strncmp(net, "proxy:", 6) == 0 ? number(net + 6) : 0;
  int host = strcmp(net, "host") == 0;
  if (proxy_port < 0 || proxy_port > 65535 || (!net_none && !join && !proxy_port && !host))
    refuse("bad -n");
  if (no_namespaces && (nr || np || nh || shm || join))
    refuse("-N cannot protect paths, hide them, give a private /dev/shm or join a network");
  /* Without Landlock's TCP rules (ABI 4) nothing could keep TCP to the proxy's port. */
  if (proxy_port && abi < 4) refuse("-n proxy needs Landlock ABI 4 (TCP rules)");

  if (!no_namespaces) {
    if (join) {
      join_network(net + 5);
    } else {
      uid_t uid = getuid();
      gid_t gid = getgid();
      if (unshare(CLONE_NEWUSER | CLONE_NEWNS | (net_none ? CLONE_NEWNET : 0)) < 0)
        fail("unshare (user, mount)", NULL);
      map_identity(uid, gid);
      if (net_none) loopback_up();
    }
    if (mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) fail("make mounts private", NULL);
    for (int j = 0; j < np; j++) pin(pins[j]);
    for (int j = 0; j < nr; j++) bind_readonly(readonly[j]);
    hide_all(hidden, nh);
    if (shm) private_shm();
  }

  uint64_t handled = fs_rights(abi);
  uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  uint64_t write = handled & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK);
  /* Sockets are left to seccomp and the network namespace, except the proxy's TCP port. */
  int sockets_filtered = no_namespaces ? !host : proxy_port != 0;
  struct ll_ruleset_attr attr = {.handled_access_fs = handled};
  size_t attr_size = 8;
  if (abi >= 4 && sockets_filtered) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    attr_size = 16;
  }
  if (abi >= 6) {
    attr.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET;
    attr_size = sizeof attr;
  }
  int ruleset = (int)syscall(NR_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) fail("landlock ruleset", NULL);
  add_path_rule(ruleset, "/", read);
  add_path_rule(ruleset, "/dev", read | (handled & FS_IOCTL_DEV));
  static const char *devices[] = {"/dev/null", "/dev/zero",   "/dev/full",   "/dev/tty",
                                  "/dev/ptmx", "/dev/random", "/dev/urandom"};
  for (size_t j = 0; j < sizeof devices / sizeof *devices; j++)
    add_path_rule(ruleset, devices[j], FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV)));
  add_path_rule(ruleset, "/dev/pts", read | FS_WRITE_FILE | (handled & FS_IOCTL_DEV));
  /* /dev/shm: private under namespaces; shared (but needed by POSIX semaphores) without. */
  if (shm || no_namespaces) add_path_rule(ruleset, "/dev/shm", write);
  for (int j = 0; j < nw; j++) add_path_rule(ruleset, writable[j], write);
  for (int j = 0; j < nf; j++) add_path_rule(ruleset, files[j], write);
  if (proxy_port) {
    struct ll_net_port rule = {.allowed_access = NET_CONNECT_TCP, .port = (uint64_t)proxy_port};
    if (syscall(NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &rule, 0) < 0)
      fail("landlock port rule", NULL);
  }

  drop_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("no_new_privs", NULL);
  if (syscall(NR_landlock_restrict_self, ruleset, 0) < 0) fail("landlock", NULL);
  close(ruleset);
  if (sockets_filtered) socket_filter(proxy_port != 0);

  /* Descriptors toolhost did not mean to pass (say, a held directory) are closed on exec. */
  close_on_exec(keep, nk);
  const char *program = argv[i];
  if (argv0) argv[i] = (char *)argv0;
  execvp(program, argv + i);
  int saved = errno;
  put(2, "toolhost-confine: cannot run ");
  put(2, program);
  put(2, ": ");
  put(2, strerror(saved));
  put(2, "\n");
  _exit(saved == ENOENT ? 127 : 126);
}
