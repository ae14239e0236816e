/*
 * toolhost-confine's parts (see confine.c for what the program does): the kernel ABI it uses,
 * spelled here because musl ships no kernel headers and the build machine's may be old, and the
 * functions its files share.
 */
#ifndef TOOLHOST_CONFINE_H
#define TOOLHOST_CONFINE_H
#define _GNU_SOURCE
#include <dirent.h>
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
#define MAX_PATHS 4096
#define MAX_KEEP 16

/* output.c: messages without stdio. */
void put(int fd, const char *text);
char *decimal(unsigned long value, char buf[24]);
long number(const char *text);
void fail(const char *what, const char *path) __attribute__((noreturn));
void refuse(const char *what) __attribute__((noreturn));

/* namespaces.c */
int landlock_abi(void);
void map_identity(uid_t uid, gid_t gid);
void loopback_up(void);
void join_network(const char *spec);

/* mounts.c */
void pin(const char *path);
void bind_readonly(const char *path);
void hide_all(const char **paths, int count);
void private_shm(void);
void private_pts(void);
void private_temp(const char *own);

/* restrict.c */
struct restrictions {
  int abi;
  const char **writable, **files, **hidden;
  int nw, nf, nh;
  /* Landlock alone hides nothing by a mount: read is then granted around the hidden paths. */
  int read_around_hidden;
  int shm_writable;
  /* Sockets other than AF_UNIX refused (seccomp), TCP to proxy_port only when it is not 0. */
  int sockets_filtered;
  long proxy_port;
};
void restrict_self(const struct restrictions *r);

/* hold.c */
void hold(const char *socket_path, int nforwards, char **forwards) __attribute__((noreturn));

#endif
