/*
 * toolhost-confine: applies toolhost's command sandbox to itself, then execs the command.
 *
 * toolhost runs on a multi-threaded runtime, where Landlock, no_new_privs and a new user
 * namespace cannot be applied to a child between fork and exec. So every process toolhost starts
 * under the sandbox starts this small single-threaded program first (the same pid: it execs), which
 *
 *   1. enters a user and mount namespace (its own, or the session's network holder's user and
 *      network namespace), so that paths inside writable roots can be made read-only (.git/hooks,
 *      .git/config, toolhost's files), credentials hidden under empty mounts, /dev/shm and
 *      /dev/pts private (the user's terminals out of reach);
 *   2. restricts itself with Landlock: read and execute everywhere, write only beneath the paths
 *      given, no signals or abstract sockets outside its domain, and (without a network
 *      namespace) TCP only to the proxy's port;
 *   3. empties its capabilities, sets no_new_privs, and installs a seccomp filter that refuses
 *      the kernel's keyrings and (without a network namespace) sockets other than AF_UNIX (and
 *      the proxy's TCP);
 *   4. execs the command.
 *
 * Modes:
 *   toolhost-confine probe              prints what this kernel offers, one line of key=value
 *   toolhost-confine hold SOCKET [P=S...]  the session's network: a user and network namespace
 *                                       with only loopback, where 127.0.0.1:PORT forwards each
 *                                       connection to the unix socket SOCKET (toolhost's proxy),
 *                                       and 127.0.0.1:P to the unix socket S (a loopback service
 *                                       of the machine that is allowed); prints "ready PORT
 *                                       NETNS-INODE PID" and lives until stdin ends
 *   toolhost-confine run OPTIONS -- PROGRAM ARGS...
 *
 * Options of run (paths absolute):
 *   -w PATH    writable beneath PATH          -f PATH   writable file (an existing file)
 *   -R PATH    read-only bind over PATH       -p PATH   pin PATH (bound onto itself: it can
 *   -h PATH    hide PATH (empty, unreadable)              then not be renamed or removed)
 *   -s         a private, writable /dev/shm   -k FD     keep FD open (others >= 3 are closed)
 *   -T PATH    the private temporary directory: the only entry left visible in its parent
 *   -0 NAME    the program's argv[0]
 *   -n none | deny | join:PID:INODE | proxy:PORT | host
 *              none: a network namespace of its own (loopback only); deny: no socket but
 *              AF_UNIX (seccomp, Landlock); join: the holder's namespace; proxy: TCP only to
 *              127.0.0.1:PORT (Landlock and seccomp); host: as is
 *   -N         no namespaces at all (Landlock only): -R, -p, -s, none and join are refused, and
 *              -h paths are left out of Landlock's read rules instead of hidden by a mount
 *   -g         a process group of its own in the caller's session, without the controlling
 *              terminal (what toolhost asks instead of a session of its own: see own_group)
 * Exit status 125 and one line "toolhost-confine: ..." on stderr when the sandbox cannot be set up.
 *
 * No stdio: the program stays a few tens of kilobytes, so starting it costs little.
 */
#include "confine.h"

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

/*
 * Leads a new process group (so it and its children are signalled as one) but stays in the
 * caller's session, and gives up the session's terminal: /dev/tty no longer opens it, as after
 * setsid. A session of its own would also be a scheduling group of its own (Linux autogroups),
 * which under load delays every exchange between toolhost and the process; a language server an
 * editor starts shares the editor's. Not being the session's leader, it cannot take a terminal
 * again; a descendant that calls setsid can, as one in a session of its own always could.
 */
static void own_group(void) {
  int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty >= 0) {
    /* Not the session's leader: this detaches only this process, nothing else in the session. */
    if (ioctl(tty, TIOCNOTTY) < 0) fail("give up the terminal", NULL);
    close(tty);
  }
  if (setpgid(0, 0) < 0) fail("setpgid", NULL);
}

int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "probe") == 0) {
    probe();
    return 0;
  }
  if (argc >= 3 && strcmp(argv[1], "hold") == 0) {
    hold(argv[2], argc - 3, argv + 3);
    return 0;
  }
  if (argc < 2 || strcmp(argv[1], "run") != 0)
    refuse("usage: toolhost-confine probe | hold SOCKET [PORT=SOCKET...] | run OPTIONS -- "
           "PROGRAM ARGS...");

  static const char *writable[MAX_PATHS], *files[MAX_PATHS], *readonly[MAX_PATHS],
      *pins[MAX_PATHS], *hidden[MAX_PATHS];
  int nw = 0, nf = 0, nr = 0, np = 0, nh = 0, keep[MAX_KEEP], nk = 0;
  const char *net = "host", *argv0 = NULL, *temp = NULL;
  int no_namespaces = 0, shm = 0, group = 0, i = 2;
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
    if (strcmp(a, "-g") == 0) {
      group = 1;
      continue;
    }
    if (a[0] != '-' || a[1] == 0 || a[2] != 0 || i + 1 >= argc) refuse("bad option");
    const char *v = argv[++i];
    if (strchr("wfRphT", a[1]) && v[0] != '/') refuse("paths must be absolute");
    int full = 0;
    switch (a[1]) {
      case 'w': full = nw >= MAX_PATHS; if (!full) writable[nw++] = v; break;
      case 'f': full = nf >= MAX_PATHS; if (!full) files[nf++] = v; break;
      case 'R': full = nr >= MAX_PATHS; if (!full) readonly[nr++] = v; break;
      case 'p': full = np >= MAX_PATHS; if (!full) pins[np++] = v; break;
      case 'h': full = nh >= MAX_PATHS; if (!full) hidden[nh++] = v; break;
      case 'n': net = v; break;
      case '0': argv0 = v; break;
      case 'T': temp = v; break;
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
  int net_deny = strcmp(net, "deny") == 0;
  int join = strncmp(net, "join:", 5) == 0;
  long proxy_port = strncmp(net, "proxy:", 6) == 0 ? number(net + 6) : 0;
  int host = strcmp(net, "host") == 0;
  if (proxy_port < 0 || proxy_port > 65535 ||
      (!net_none && !net_deny && !join && !proxy_port && !host))
    refuse("bad -n");
  if (no_namespaces && (nr || np || shm || join || net_none || temp))
    refuse("-N cannot protect paths, give a private /dev/shm or a network namespace");
  /* Without Landlock's TCP rules (ABI 4) nothing could keep TCP to the proxy's port. */
  if (proxy_port && abi < 4) refuse("-n proxy needs Landlock ABI 4 (TCP rules)");

  if (group) own_group();
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
    private_pts();
    if (temp) private_temp(temp);
  }

  struct restrictions r = {
    .abi = abi,
    .writable = writable,
    .files = files,
    .hidden = hidden,
    .nw = nw,
    .nf = nf,
    .nh = nh,
    .read_around_hidden = no_namespaces,
    /* /dev/shm: private under namespaces; shared (but needed by POSIX semaphores) without. */
    .shm_writable = shm || no_namespaces,
    .sockets_filtered = net_deny || proxy_port != 0,
    .proxy_port = proxy_port,
  };
  restrict_self(&r);

  /* Descriptors toolhost did not mean to pass (say, a held directory) are closed on exec. */
  close_on_exec(keep, nk);
  const char *program = argv[i];
  if (argv0) argv[i] = (char *)argv0;
  execvp(program, argv + i);
  int saved = errno;
  /* One line toolhost reads back as a failed start: "… cannot run PATH (errno N): why". */
  char buf[24];
  put(2, "toolhost-confine: cannot run ");
  put(2, program);
  put(2, " (errno ");
  put(2, decimal((unsigned long)saved, buf));
  put(2, "): ");
  put(2, strerror(saved));
  put(2, "\n");
  _exit(saved == ENOENT ? 127 : 126);
}
