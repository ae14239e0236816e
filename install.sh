#!/bin/sh
# Installs toolhost, the MCP server, from its release page:
#
#   curl -fsSL https://github.com/toolhost/toolhost/releases/latest/download/install.sh | sh
#   sh install.sh [DIR]        # install into DIR instead of ~/.local/bin
#
# It picks the archive for this OS and CPU, checks it against the release's SHA256SUMS (and
# refuses it on a mismatch), installs the binary (and the ripgrep it carries, as toolhost-rg)
# and prints the .mcp.json entry for it.
# Environment:
#   TOOLHOST_VERSION      a release such as v0.1.0 (default: the latest release)
#   TOOLHOST_BASE_URL     where the archives and SHA256SUMS are (a mirror, or a local server)
#   TOOLHOST_INSTALL_DIR  where to install (default ~/.local/bin; an argument wins)
#   TOOLHOST_PLATFORM     skip detection: linux-x64, linux-x64-baseline, linux-arm64,
#                         linux-x64-musl, linux-arm64-musl, darwin-x64, darwin-arm64
set -eu

# The release's repository; the release build writes the real one here.
REPOSITORY="toolhost/toolhost"

say() { printf '%s\n' "$*" >&2; }
die() {
  say "install.sh: $*"
  exit 1
}

download() { # URL FILE
  if command -v curl >/dev/null 2>&1; then
    # A transfer that stalls for 30 s is given up rather than waited on for ever.
    curl --fail --silent --show-error --location --retry 2 --connect-timeout 20 \
      --speed-limit 1 --speed-time 30 --output "$2" "$1"
  elif command -v wget >/dev/null 2>&1; then
    wget --quiet --timeout=30 --tries=3 --output-document="$2" "$1"
  else
    die "neither curl nor wget is installed; install one of them and run this again"
  fi
}

sha256() { # FILE
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d ' ' -f 1
  else
    die "neither sha256sum nor shasum is installed, so the download cannot be checked"
  fi
}

is_musl() {
  # glibc answers getconf GNU_LIBC_VERSION; musl has no such variable.
  if getconf GNU_LIBC_VERSION >/dev/null 2>&1; then return 1; fi
  for loader in /lib/ld-musl-*.so.1; do
    [ -e "$loader" ] && return 0
  done
  ldd --version 2>&1 | grep -qi musl
}

has_avx2() {
  [ -r /proc/cpuinfo ] || return 0
  case " $(grep -m 1 '^flags' /proc/cpuinfo) " in
    *" avx2 "*) return 0 ;;
    *) return 1 ;;
  esac
}

detect_platform() {
  os=$(uname -s)
  machine=$(uname -m)
  case "$machine" in
    x86_64 | amd64) cpu=x64 ;;
    aarch64 | arm64) cpu=arm64 ;;
    *) die "there is no toolhost build for the $machine processor" ;;
  esac
  case "$os" in
    Linux)
      if is_musl; then
        if [ "$cpu" = x64 ] && ! has_avx2; then
          die "this CPU lacks AVX2, and the musl build needs it; use a glibc system (linux-x64-baseline)"
        fi
        echo "linux-$cpu-musl"
      elif [ "$cpu" = x64 ] && ! has_avx2; then
        echo "linux-x64-baseline"
      else
        echo "linux-$cpu"
      fi
      ;;
    Darwin)
      # An x64 shell under Rosetta on Apple silicon still gets the native build.
      if [ "$cpu" = x64 ] && [ "$(sysctl -n sysctl.proc_translated 2>/dev/null || true)" = 1 ]; then
        cpu=arm64
      fi
      echo "darwin-$cpu"
      ;;
    MINGW* | MSYS* | CYGWIN* | Windows_NT)
      die "on Windows, download toolhost-windows-x64.zip from the release page"
      ;;
    *) die "there is no toolhost build for $os" ;;
  esac
}

place() { # FILE TARGET
  # Copied next to the target and renamed over it, so a running program is never overwritten;
  # a fresh name, so a planted symlink or a second install cannot be written through.
  new=$(mktemp "$(dirname -- "$2")/.toolhost.XXXXXX") || die "cannot write in $(dirname -- "$2")"
  if ! { cp "$1" "$new" && chmod 755 "$new" && mv -f "$new" "$2"; }; then
    rm -f "$new"
    die "could not install $2"
  fi
}

main() {
  dir=${1:-${TOOLHOST_INSTALL_DIR:-${HOME:?HOME is not set}/.local/bin}}
  version=${TOOLHOST_VERSION:-latest}
  case "$version" in
    latest | v*) ;;
    *) version="v$version" ;;
  esac
  if [ -n "${TOOLHOST_BASE_URL:-}" ]; then
    base=${TOOLHOST_BASE_URL%/}
  elif [ "$version" = latest ]; then
    base="https://github.com/$REPOSITORY/releases/latest/download"
  else
    base="https://github.com/$REPOSITORY/releases/download/$version"
  fi
  platform=${TOOLHOST_PLATFORM:-$(detect_platform)}
  archive="toolhost-$platform.tar.gz"

  work=$(mktemp -d 2>/dev/null || mktemp -d -t toolhost)
  trap 'rm -rf "$work"' EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM

  say "Downloading $base/$archive"
  download "$base/$archive" "$work/$archive" || die "could not download $base/$archive"
  download "$base/SHA256SUMS" "$work/SHA256SUMS" || die "could not download $base/SHA256SUMS"

  expected=$(awk -v name="$archive" '$2 == name || $2 == "*" name { print $1 }' "$work/SHA256SUMS")
  [ -n "$expected" ] || die "SHA256SUMS has no line for $archive"
  actual=$(sha256 "$work/$archive")
  if [ "$actual" != "$expected" ]; then
    die "checksum mismatch for $archive: expected $expected, got $actual. Nothing was installed."
  fi

  tar -xzf "$work/$archive" -C "$work"
  [ -f "$work/toolhost-$platform/toolhost" ] || die "$archive does not hold toolhost-$platform/toolhost"

  mkdir -p "$dir"
  dir=$(CDPATH='' cd -- "$dir" && pwd)
  place "$work/toolhost-$platform/toolhost" "$dir/toolhost"
  if [ -f "$work/toolhost-$platform/rg" ]; then
    # ripgrep for grep, under a name nothing else runs, so an rg the user has stays the one their
    # shell finds (and toolhost prefers an rg on PATH to this one). Its licences go with it.
    place "$work/toolhost-$platform/rg" "$dir/toolhost-rg"
    # Beside bin/, as share/doc/ is (~/.local/bin: ~/.local/share/doc/toolhost-rg).
    licences="$(dirname -- "$dir")/share/doc/toolhost-rg"
    if mkdir -p "$licences" && cp "$work/toolhost-$platform"/ripgrep-* "$licences/"; then
      say "Installed ripgrep for grep as $dir/toolhost-rg (its licence: $licences)"
    else
      say "Installed ripgrep for grep as $dir/toolhost-rg; its licence files are in the archive"
    fi
  fi

  # </dev/null: under `curl ... | sh`, stdin is the rest of this script.
  say "Installed $("$dir/toolhost" --version </dev/null 2>/dev/null || echo "toolhost ($platform)") to $dir/toolhost"
  case ":${PATH:-}:" in
    *":$dir:"*) ;;
    *) say "Note: $dir is not on your PATH; clients need the full path below anyway." ;;
  esac
  say "Add this to your client's .mcp.json (toolhost --mcp-json prints it again):"
  if ! "$dir/toolhost" --mcp-json </dev/null 2>/dev/null; then
    printf '{\n  "mcpServers": {\n    "toolhost": {\n      "command": "%s",\n      "args": [],\n      "env": {}\n    }\n  }\n}\n' "$dir/toolhost"
  fi
}

main "$@"
