/*
 * Mounts inside the command's own mount namespace: pinned entries, read-only copies, hidden
 * entries, a private /dev/shm and /dev/pts. Each is made as a detached copy and attached by descriptor, so a
 * name is looked up once and nothing is ever writable in between.
 */
#include "confine.h"

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
void bind_readonly(const char *path) {
  int target;
  int tree = copy_tree(path, 1, &target);
  if (tree >= 0) attach(tree, target, path);
}

/* PATH bound onto itself: a mount point cannot be renamed or removed (EBUSY). */
void pin(const char *path) {
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
void hide_all(const char **paths, int count) {
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

/*
 * The private temporary directory OWN alone in its parent: every toolhost and session of the user
 * keeps its own beside it (`<tmp>/toolhost-<uid>/<pid>-session-…`, the network's socket), and
 * Landlock's read-everywhere would show them all. A tmpfs over the parent holds only a mount
 * point, on which OWN itself (a copy taken first) is attached, and is then made read-only.
 */
void private_temp(const char *own) {
  const char *slash = strrchr(own, '/');
  if (!slash || slash == own || slash[1] == 0) refuse("bad -T");
  char parent[4096];
  size_t n = (size_t)(slash - own);
  if (n >= sizeof parent) refuse("bad -T");
  memcpy(parent, own, n);
  parent[n] = 0;
  int target;
  int tree = copy_tree(own, 0, &target);
  if (tree < 0) return;
  close(target);
  if (mount("toolhost-temp", parent, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
            "size=4k,nr_inodes=4,mode=0700") < 0)
    fail("mount a tmpfs on", parent);
  if (mkdir(own, 0700) < 0) fail("mkdir", own);
  target = open(own, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
  if (target < 0) fail("open", own);
  attach(tree, target, own);
  if (mount(NULL, parent, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
            NULL) < 0)
    fail("make read-only", parent);
}

/* A fresh /dev/shm: the machine's is shared with every process of the user. */
void private_shm(void) {
  if (mount("toolhost-shm", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0 &&
      errno != ENOENT)
    fail("private /dev/shm", NULL);
}


/*
 * A /dev/pts of the sandbox's own, where the terminals a command makes (script, expect, a test's
 * pty) are the only ones. The machine's holds every terminal of the user (each window, ssh
 * session and tmux pane), which a command could open to read what is typed there (a password at
 * a sudo prompt) and to write to what is shown. Where a devpts cannot be mounted, an empty
 * read-only tmpfs covers it: no terminal at all rather than the user's.
 */
void private_pts(void) {
  if (mount("toolhost-pts", "/dev/pts", "devpts", MS_NOSUID | MS_NOEXEC,
            "newinstance,ptmxmode=0666,mode=0600") == 0) {
    if (mount("/dev/pts/ptmx", "/dev/ptmx", NULL, MS_BIND, NULL) < 0 && errno != ENOENT)
      fail("bind /dev/pts/ptmx onto", "/dev/ptmx");
    return;
  }
  if (errno == ENOENT) return;
  if (mount("toolhost-nopts", "/dev/pts", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RDONLY,
            "size=4k,nr_inodes=2,mode=0755") < 0)
    fail("cover", "/dev/pts");
}
