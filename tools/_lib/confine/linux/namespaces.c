/* Namespaces: what the kernel offers, the user namespace's identity map, the network. */
#include "confine.h"

int landlock_abi(void) {
  long abi = syscall(NR_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return abi < 0 ? 0 : (int)abi;
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
void map_identity(uid_t uid, gid_t gid) {
  if (write_text("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) fail("setgroups", NULL);
  map_one("/proc/self/uid_map", uid);
  map_one("/proc/self/gid_map", gid);
}

void loopback_up(void) {
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

/* Enters the holder's user and network namespaces ("PID:INODE"; the inode guards a reused pid). */
void join_network(const char *spec) {
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

