#!/usr/bin/env bash
# Builds Saji.app and Saji-VERSION-macos.dmg on a Mac (Xcode's command line
# tools and Go): a universal binary (arm64 and amd64, cgo for Fyne), the
# bundle (Info.plist with the version, icon.icns from assets/icon.png),
# then, where the environment gives the credentials, signs the app with the
# hardened runtime and notarizes and staples the disk image. See README.md.
#
# Usage: packaging/macos/make-app.sh OUTDIR
# Signing: SIGN_IDENTITY ("Developer ID Application: NAME (TEAMID)"), in
# the default keychain. Notarization: NOTARY_APPLE_ID, NOTARY_TEAM_ID and
# NOTARY_PASSWORD (an app-specific password).
set -euo pipefail
out=$(mkdir -p "${1:?usage: $0 OUTDIR}" && cd "$1" && pwd)
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
version=$(.ci/version)
ldflags="-X saji/internal/cli.Version=$version -X saji/internal/cli.Commit=$(git rev-parse HEAD) -X saji/internal/cli.BuildDate=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for arch in arm64 amd64; do
	CGO_ENABLED=1 GOOS=darwin GOARCH=$arch MACOSX_DEPLOYMENT_TARGET=12.0 \
		go build -ldflags "-s $ldflags" -o "$work/saji-$arch" .
done

app=$out/Saji.app
rm -rf "$app"
mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
lipo -create -output "$app/Contents/MacOS/saji" "$work/saji-arm64" "$work/saji-amd64"
cp packaging/macos/Info.plist "$app/Contents/Info.plist"
plutil -replace CFBundleShortVersionString -string "${version%%-*}" "$app/Contents/Info.plist"
plutil -replace CFBundleVersion -string "$version" "$app/Contents/Info.plist"
plutil -lint "$app/Contents/Info.plist"

iconset=$work/icon.iconset
mkdir "$iconset"
for n in 16 32 128 256 512; do
	sips -z $n $n assets/icon.png --out "$iconset/icon_${n}x${n}.png" >/dev/null
	sips -z $((2 * n)) $((2 * n)) assets/icon.png --out "$iconset/icon_${n}x${n}@2x.png" >/dev/null
done
iconutil -c icns -o "$app/Contents/Resources/icon.icns" "$iconset"

if [[ -n ${SIGN_IDENTITY:-} ]]; then
	codesign --force --options runtime --timestamp --sign "$SIGN_IDENTITY" "$app"
	codesign --verify --strict --verbose=2 "$app"
fi

dmg=$out/Saji-$version-macos.dmg
mkdir "$work/dmg"
cp -R "$app" "$work/dmg/"
ln -s /Applications "$work/dmg/Applications"
rm -f "$dmg"
hdiutil create -volname Saji -srcfolder "$work/dmg" -ov -format UDZO "$dmg"

if [[ -n ${SIGN_IDENTITY:-} ]]; then
	codesign --force --timestamp --sign "$SIGN_IDENTITY" "$dmg"
	if [[ -n ${NOTARY_APPLE_ID:-} ]]; then
		xcrun notarytool submit "$dmg" --apple-id "$NOTARY_APPLE_ID" --team-id "$NOTARY_TEAM_ID" \
			--password "$NOTARY_PASSWORD" --wait
		xcrun stapler staple "$dmg"
		spctl --assess --type open --context context:primary-signature --verbose "$dmg"
	fi
fi
"$app/Contents/MacOS/saji" version
echo "make-app: $app, $dmg"
