#!/usr/bin/env bash
# Builds every library target, then the example app (Examples/CompositorPlayer), for an Apple
# platform against Apple's real SDK, in Swift 6 mode, one module per target with -wmo
# -emit-module (so the SIL-stage diagnostics, region isolation and "sending" among them, are
# included; -typecheck alone misses them). Linking and running need Apple's linker and a device.
#
#   bash Tests/Tools/apple-sdk-check.sh SDK RESOURCE_DIR [TRIPLE]      (default arm64-apple-ios16.0)
#
# SDK and RESOURCE_DIR come from ../shared/tools/apple-sdk/setup.sh (the iOS 18.6 SDK of a public
# snapshot, fetched with the search tool's `fetch`). Prints errors and warnings per module and a
# closing line; exits 1 when any module has one.
set -u
cd "$(dirname "$0")/../.."
SDK=${1:?usage: apple-sdk-check.sh SDK RESOURCE_DIR [TRIPLE]}
RES=${2:?usage: apple-sdk-check.sh SDK RESOURCE_DIR [TRIPLE]}
TRIPLE=${3:-arm64-apple-ios16.0}
cache=${MODULE_CACHE:-/tmp/apple-sdk-module-cache}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The library targets in dependency order (stand-ins, the demo and benchmarks left out: the
# stand-ins exist only where Apple's frameworks do not).
modules=(CompositorCore CompositorIO CompositorTS CompositorMP4 CompositorHLS CompositorAds Compositor CompositorAVFoundation CompositorTesting)
bad=0
build() {
  local name=$1; shift
  swiftc -emit-module -module-name "$name" -emit-module-path "$out/$name.swiftmodule" \
    -swift-version 6 -target "$TRIPLE" -sdk "$SDK" -resource-dir "$RES" -module-cache-path "$cache" \
    -package-name Compositor -DSWIFT_PACKAGE -Onone -parse-as-library -I "$out" -wmo -j1 "$@" >"$out/$name.log" 2>&1
  local status=$? errors warnings
  errors=$(grep -c ': error:' "$out/$name.log"); warnings=$(grep -c ': warning:' "$out/$name.log")
  echo "$name: exit $status, $errors errors, $warnings warnings"
  grep -E ': (error|warning):' "$out/$name.log" | sed "s#$PWD/##" | head -20
  [[ $status -ne 0 || $errors -gt 0 || $warnings -gt 0 ]] && bad=1
  return 0
}
for module in "${modules[@]}"; do
  # shellcheck disable=SC2046
  build "$module" $(find "Sources/$module" -name '*.swift' | sort)
done
# The app, as Xcode builds it: cross-import overlays on (SwiftUI's VideoPlayer is AVKit's overlay
# for SwiftUI).
# shellcheck disable=SC2046
build CompositorPlayer -Xfrontend -enable-cross-import-overlays $(find Examples/CompositorPlayer -name '*.swift' | sort)

sdk_version=$(basename "$SDK")
if (( bad )); then
  echo "apple-sdk-check: FAILED against $sdk_version for $TRIPLE"
  exit 1
fi
echo "apple-sdk-check: ${#modules[@]} library modules and the example app build against $sdk_version for $TRIPLE, 0 errors, 0 warnings"
