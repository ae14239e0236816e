/* Landlock, capabilities and seccomp: what the command may do once the mounts are made. */
#include "confine.h"

/* The filesystem rights this ABI knows; a right it does not know cannot be handled. */
static uint64_t fs_rights(int abi) {
  uint64_t rights = (1ULL << 13) - 1; /* ABI 1: EXECUTE .. MAKE_SYM */
  if (abi >= 2) rights |= FS_REFER;
  if (abi >= 3) rights |= FS_TRUNCATE;
  if (abi >= 5) rights |= FS_IOCTL_DEV;
  return rights;
}

/* A rule for the entry at `at`/`name` (O_NOFOLLOW when asked); absent entries need none. */
static void add_rule_at(int ruleset, int at, const char *name, int flags, uint64_t access,
                        const char *shown) {
  struct ll_path_beneath rule;
  rule.parent_fd = openat(at, name, O_PATH | O_CLOEXEC | flags);
  if (rule.parent_fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == ENOTDIR || errno == ELOOP) return;
    fail("open for landlock", shown);
  }
  struct stat st;
  if (fstat(rule.parent_fd, &st) < 0) fail("stat", shown);
  /* A link needs no rule: what is reached through it is checked where it points. */
  if (S_ISLNK(st.st_mode)) {
    close(rule.parent_fd);
    return;
  }
  /* Directory-only rights are refused on a file. */
  if (!S_ISDIR(st.st_mode))
    access &= FS_EXECUTE | FS_WRITE_FILE | FS_READ_FILE | FS_TRUNCATE | FS_IOCTL_DEV;
  rule.allowed_access = access;
  if (syscall(NR_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &rule, 0) < 0)
    fail("landlock rule", shown);
  close(rule.parent_fd);
}

static void add_path_rule(int ruleset, const char *path, uint64_t access) {
  add_rule_at(ruleset, AT_FDCWD, path, 0, access, path);
}

/* Whether `path` is `dir` (equal) or lies beneath it (below). */
static int equal(const char *path, const char *dir) {
  return strcmp(path, dir) == 0;
}
static int below(const char *path, const char *dir) {
  size_t n = strlen(dir);
  if (n == 1) return path[1] != 0; /* beneath "/" */
  return strncmp(path, dir, n) == 0 && path[n] == '/' && path[n + 1] != 0;
}

/*
 * Without a mount namespace nothing can be hidden by a mount, and a Landlock rule covers all
 * beneath it. So read is granted entry by entry along the way to each hidden path: the directory
 * itself may be listed, each entry but the hidden one read whole. Entries made later in those
 * directories are not readable by this command.
 */
static void read_around(int ruleset, const char *dir, const struct restrictions *r,
                        uint64_t read, int depth) {
  add_path_rule(ruleset, dir, FS_READ_DIR);
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  char buf[4096], child[4096];
  size_t n = strlen(dir);
  for (;;) {
    long got = syscall(SYS_getdents64, fd, buf, sizeof buf);
    if (got <= 0) break;
    for (long at = 0; at < got;) {
      struct dirent64 *entry = (struct dirent64 *)(buf + at);
      at += entry->d_reclen;
      const char *name = entry->d_name;
      if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
      if (n + strlen(name) + 2 > sizeof child) continue;
      memcpy(child, dir, n);
      size_t k = n == 1 ? 0 : n;
      child[k] = '/';
      strcpy(child + k + 1, name);
      int hidden = 0, above = 0;
      for (int j = 0; j < r->nh; j++) {
        hidden |= equal(r->hidden[j], child);
        above |= below(r->hidden[j], child);
      }
      if (hidden) continue;
      if (above && depth < 16)
        read_around(ruleset, child, r, read, depth + 1);
      else
        add_rule_at(ruleset, fd, name, O_NOFOLLOW, read, child);
    }
  }
  close(fd);
}

#define LOAD(offset) {BPF_LD_W_ABS, 0, 0, (offset)}
#define IS(value, yes, no) {BPF_JEQ_K, (yes), (no), (value)}
#define DENY_WITH(error) {BPF_RET_K, 0, 0, RET_ERRNO | (error)}
#define DENY DENY_WITH(EACCES)
#define ALLOW {BPF_RET_K, 0, 0, RET_ALLOW}

/*
 * seccomp, always: no kernel keyring (the session keyring is inherited from toolhost, and keeps
 * what Kerberos and others store there, readable by any process that possesses it). When
 * `sockets`: sockets only of AF_UNIX (and AF_NETLINK), plus TCP when allow_tcp; no io_uring.
 */
static void syscall_filter(int sockets, int allow_tcp) {
  struct bpf_insn_ filter[32];
  unsigned short n = 0;
  filter[n++] = (struct bpf_insn_)LOAD(SD_ARCH);
  filter[n++] = (struct bpf_insn_)IS(AUDIT_ARCH, 1, 0);
  /* another ABI (32-bit calls on x86_64) could make sockets past this filter */
  filter[n++] = (struct bpf_insn_)DENY;
  filter[n++] = (struct bpf_insn_)LOAD(SD_NR);
#ifdef X32_BIT
  filter[n++] = (struct bpf_insn_){BPF_JGE_K, 0, 1, X32_BIT};
  filter[n++] = (struct bpf_insn_)DENY; /* x32 calls: the same arch, other numbers */
#endif
  filter[n++] = (struct bpf_insn_)IS(__NR_add_key, 2, 0);
  filter[n++] = (struct bpf_insn_)IS(__NR_keyctl, 1, 0);
  filter[n++] = (struct bpf_insn_)IS(__NR_request_key, 0, 1);
  filter[n++] = (struct bpf_insn_)DENY_WITH(EPERM);
  if (!sockets) {
    filter[n++] = (struct bpf_insn_)ALLOW;
  } else {
    filter[n++] = (struct bpf_insn_)IS(__NR_io_uring_setup, 0, 1);
    filter[n++] = (struct bpf_insn_)DENY; /* io_uring can open sockets without socket(2) */
    filter[n++] = (struct bpf_insn_)IS(__NR_socket, 1, 0);
    filter[n++] = (struct bpf_insn_)ALLOW;
    filter[n++] = (struct bpf_insn_)LOAD(SD_ARG0); /* the family */
    filter[n++] = (struct bpf_insn_)IS(AF_UNIX, 0, 1);
    filter[n++] = (struct bpf_insn_)ALLOW;
    filter[n++] = (struct bpf_insn_)IS(AF_NETLINK, 0, 1);
    filter[n++] = (struct bpf_insn_)ALLOW;
    if (allow_tcp) {
      filter[n++] = (struct bpf_insn_)IS(AF_INET, 1, 0);
      filter[n++] = (struct bpf_insn_)IS(AF_INET6, 0, 4);
      filter[n++] = (struct bpf_insn_)LOAD(SD_ARG1);
      filter[n++] = (struct bpf_insn_){BPF_AND_K, 0, 0, 0xf}; /* the type without CLOEXEC/NONBLOCK */
      filter[n++] = (struct bpf_insn_)IS(SOCK_STREAM, 0, 1);
      filter[n++] = (struct bpf_insn_)ALLOW;
    }
    filter[n++] = (struct bpf_insn_)DENY;
  }
  struct bpf_prog_ prog = {.len = n, .filter = filter};
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


void restrict_self(const struct restrictions *r) {
  uint64_t handled = fs_rights(r->abi);
  uint64_t read = FS_EXECUTE | FS_READ_FILE | FS_READ_DIR;
  uint64_t write = handled & ~(FS_MAKE_CHAR | FS_MAKE_BLOCK);
  struct ll_ruleset_attr attr = {.handled_access_fs = handled};
  size_t attr_size = 8;
  if (r->abi >= 4 && r->sockets_filtered) {
    attr.handled_access_net = NET_BIND_TCP | NET_CONNECT_TCP;
    attr_size = 16;
  }
  if (r->abi >= 6) {
    attr.scoped = SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET;
    attr_size = sizeof attr;
  }
  int ruleset = (int)syscall(NR_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0) fail("landlock ruleset", NULL);
  if (r->read_around_hidden && r->nh > 0)
    read_around(ruleset, "/", r, read, 0);
  else
    add_path_rule(ruleset, "/", read);
  add_path_rule(ruleset, "/dev", read | (handled & FS_IOCTL_DEV));
  static const char *devices[] = {"/dev/null", "/dev/zero",   "/dev/full",   "/dev/tty",
                                  "/dev/ptmx", "/dev/random", "/dev/urandom"};
  for (size_t j = 0; j < sizeof devices / sizeof *devices; j++)
    add_path_rule(ruleset, devices[j], FS_WRITE_FILE | (handled & (FS_TRUNCATE | FS_IOCTL_DEV)));
  add_path_rule(ruleset, "/dev/pts", read | FS_WRITE_FILE | (handled & FS_IOCTL_DEV));
  if (r->shm_writable) add_path_rule(ruleset, "/dev/shm", write);
  for (int j = 0; j < r->nw; j++) add_path_rule(ruleset, r->writable[j], write);
  for (int j = 0; j < r->nf; j++) add_path_rule(ruleset, r->files[j], write);
  if (r->proxy_port) {
    struct ll_net_port rule = {.allowed_access = NET_CONNECT_TCP, .port = (uint64_t)r->proxy_port};
    if (syscall(NR_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &rule, 0) < 0)
      fail("landlock port rule", NULL);
  }

  drop_capabilities();
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) fail("no_new_privs", NULL);
  if (syscall(NR_landlock_restrict_self, ruleset, 0) < 0) fail("landlock", NULL);
  close(ruleset);
  syscall_filter(r->sockets_filtered, r->proxy_port != 0);
}
