#!/usr/bin/env bash
# Builds a release of Varsel that installs without Swift: the binary with the Swift standard library linked
# statically, beside the resources it serves, as
#   dist/varsel-<version>-linux-<arch>.tar.gz   (bin/varsel, lib/varsel/, the systemd unit, an example env file, docs)
#   dist/varsel_<version>_<debian arch>.deb      (installs to /usr; makes the varsel user, /etc/varsel and /var/lib/varsel)
# Run from anywhere; PACKAGE_SKIP_BUILD=1 packages the release binary already built; PACKAGE_JOBS=N builds with at most
# N compile jobs at once; PACKAGE_SCRATCH_PATH=DIR builds in DIR instead of .build, so the release build can run while
# another build or `swift test` holds .build (scripts/test.sh builds it beside the tests that way).
set -euo pipefail
cd "$(dirname "$0")/.."

# The ICU data linked instead of the toolchain's (English and Norwegian only) must be this toolchain's, trimmed.
python3 scripts/trim_icu_data.py --check

scratch=(${PACKAGE_SCRATCH_PATH:+--scratch-path "$PACKAGE_SCRATCH_PATH"})
# Without debug information: the packaged binary is stripped anyway, and the build does a twelfth less work.
# Says how long the build took and what CPU it used: a test run builds it beside its tests, on the CPU they leave.
if [[ "${PACKAGE_SKIP_BUILD:-0}" != 1 ]]; then
  TIMEFORMAT='The release build took %0R s, with %0U CPU-seconds in user mode and %0S in the kernel.'
  # Relative relocations packed (RELR): 3.5 MB of them become 29 KB. The loader must know them: glibc 2.36 or later.
  time swift build -c release --product varsel --static-swift-stdlib -debug-info-format none "${scratch[@]}" ${PACKAGE_JOBS:+-j "$PACKAGE_JOBS"} \
    -Xlinker -z -Xlinker pack-relative-relocs
fi
bin_dir="$(swift build -c release --show-bin-path "${scratch[@]}")"
binary="$bin_dir/varsel"
resources="$bin_dir/varsel_VarselWeb.resources"
[[ -x "$binary" && -d "$resources" ]] || { echo "No release build at $bin_dir: run without PACKAGE_SKIP_BUILD." >&2; exit 1; }

# The linker took the trimmed ICU data: its symbol is as large as the file, not the toolchain's 34 MB.
icu_data=(Sources/VarselICUData/icudt*l.dat)
linked_icu_size="$(nm -S --defined-only "$binary" | awk '$4 ~ /^icudt[0-9]+_dat$/ {print $2}')"
linked_icu_bytes=$((16#${linked_icu_size:-0}))
if [[ "$linked_icu_bytes" != "$(stat -c %s "${icu_data[0]}")" ]]; then
  echo "The release linked ICU data of $linked_icu_bytes bytes, not ${icu_data[0]}: see Sources/VarselICUData/icu_data.c." >&2
  exit 1
fi

version="$("$binary" --version | awk '{print $2}')"
arch="$(uname -m)"
case "$arch" in
  x86_64) deb_arch=amd64 ;;
  aarch64) deb_arch=arm64 ;;
  *) echo "No Debian architecture known for $arch." >&2; exit 1 ;;
esac

# The libraries the binary still loads from the system (the Swift ones are inside it), as Debian packages.
libraries="$(ldd "$binary")"
if grep -q 'libswift' <<<"$libraries"; then
  echo "The binary loads a Swift library from the system: it would not run without Swift." >&2
  exit 1
fi
depends="libc6 (>= 2.36), libsqlite3-0"
for library in libstdc++ libgcc_s libz; do
  if grep -q "$library" <<<"$libraries"; then
    case "$library" in
      libstdc++) depends+=", libstdc++6" ;;
      libgcc_s) depends+=", libgcc-s1" ;;
      libz) depends+=", zlib1g" ;;
    esac
  fi
done

dist="dist"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$dist"

# The program and its resources stay together: it finds them beside its own file, also through a symbolic link.
install_tree() {
  local root="$1"
  install -d "$root/lib/varsel"
  install -m 755 "$binary" "$root/lib/varsel/varsel"
  strip "$root/lib/varsel/varsel" 2>/dev/null || true
  cp -R "$resources" "$root/lib/varsel/"
  install -d "$root/bin"
  ln -s ../lib/varsel/varsel "$root/bin/varsel"
}

# The tarball: extract anywhere (for example /opt) and link bin/varsel into the PATH.
name="varsel-$version-linux-$arch"
tree="$stage/$name"
install_tree "$tree"
install -d "$tree/share/doc/varsel"
cp README.md docs/*.md "$tree/share/doc/varsel/"
install -m 644 packaging/varsel@.service "$tree/varsel@.service"
install -m 644 packaging/env.example "$tree/env.example"
install -d "$tree/share/varsel/prometheus"
install -m 644 packaging/prometheus/*.yml "$tree/share/varsel/prometheus/"
# Compressed beside the Debian package's making and compression (each uses one core): it is done by then.
tar -C "$stage" -czf "$dist/$name.tar.gz" "$name" &
tarball_pid=$!

# The Debian package.
deb="$stage/deb"
install_tree "$deb/usr"
install -d "$deb/usr/share/doc/varsel" "$deb/lib/systemd/system" "$deb/etc/varsel" "$deb/DEBIAN"
cp README.md docs/*.md "$deb/usr/share/doc/varsel/"
install -m 644 packaging/varsel@.service "$deb/lib/systemd/system/varsel@.service"
install -m 640 packaging/env.example "$deb/etc/varsel/env"
# The alert rules and their tests, for the operator's Prometheus (docs/reliability.md).
install -d "$deb/usr/share/varsel/prometheus"
install -m 644 packaging/prometheus/*.yml "$deb/usr/share/varsel/prometheus/"
install -m 755 packaging/deb/postinst packaging/deb/postrm "$deb/DEBIAN/"
echo "/etc/varsel/env" > "$deb/DEBIAN/conffiles"
size="$(du -sk "$deb/usr" "$deb/lib" "$deb/etc" | awk '{sum += $1} END {print sum}')"
cat > "$deb/DEBIAN/control" <<CONTROL
Package: varsel
Version: $version
Architecture: $deb_arch
Maintainer: Varsel <drift@varsel.example>
Installed-Size: $size
Depends: $depends, passwd
Section: net
Priority: optional
Homepage: https://varsel.example
Description: accessible notification centre for peer mentors who use a screen reader
 Varsel sends peer mentors their assignments, certification warnings and training
 scenarios, read aloud by VoiceOver, TalkBack, NVDA and Orca, in the browser and by
 Web Push. Run it with systemd (varsel@PORT); settings are in /etc/varsel/env.
CONTROL
deb_file="$dist/varsel_${version}_${deb_arch}.deb"
# xz at its lightest level: packaging takes 14 CPU-seconds instead of 47 with dpkg-deb's default (-z6), and the package
# is 27 MB instead of 23; every dpkg reads it. It runs at the end of a test run, after the release build.
dpkg-deb --root-owner-group -Zxz -z1 --build "$deb" "$deb_file" >/dev/null
wait "$tarball_pid" || { echo "Making $dist/$name.tar.gz failed." >&2; exit 1; }

echo "Built $dist/$name.tar.gz and $deb_file (varsel $version, depends on: $depends)."
