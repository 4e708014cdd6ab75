package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"
	"golang.org/x/mod/semver"

	"saji/engine/library"
)

// buildInfo says which Saji this is (Options.Version, Commit, BuildDate).
type buildInfo struct {
	Version, Commit, Date string
}

// aboutText is About's text: what Saji is, its version, commit and build
// date, and where it keeps its files.
func (u *ui) aboutText() string {
	b := u.build
	unknown := func(s string) string {
		if s == "" {
			return "unknown"
		}
		return s
	}
	return "Saji runs language models on this computer.\n\n" +
		"Version: " + unknown(b.Version) + "\nCommit: " + unknown(b.Commit) + "\nBuilt: " + unknown(b.Date) + "\n\n" +
		"Models: " + u.core.Settings().ModelsDir + "\nConversations: " + library.DataDir()
}

// showAbout shows the About dialog.
func (u *ui) showAbout() {
	dialog.ShowInformation("About Saji", u.aboutText(), u.win)
}

// The update check: only when the settings name a feed (never unasked),
// once at launch, bounded in time and size.
const (
	updateTimeout = 15 * time.Second
	maxFeedBytes  = 1 << 20
)

// release is a published Saji: its version and the page to get it from.
type release struct {
	Version string
	URL     string
}

// feedRelease is one release in a feed: GitHub's releases API shape, one
// object (releases/latest) or a list of them (releases).
type feedRelease struct {
	TagName    string `json:"tag_name"`
	HTMLURL    string `json:"html_url"`
	Draft      bool   `json:"draft"`
	Prerelease bool   `json:"prerelease"`
}

// canonicalVersion returns v as semver wants it ("1.2" -> "v1.2"), or ""
// when it is not a version.
func canonicalVersion(v string) string {
	v = strings.TrimSpace(v)
	if v != "" && v[0] != 'v' {
		v = "v" + v
	}
	if !semver.IsValid(v) {
		return ""
	}
	return v
}

// parseFeed returns the newest stable release in a feed (drafts,
// prereleases and tags that are not versions left out).
func parseFeed(b []byte) (release, error) {
	var list []feedRelease
	if err := json.Unmarshal(b, &list); err != nil {
		var one feedRelease
		if err := json.Unmarshal(b, &one); err != nil {
			return release{}, fmt.Errorf("app: the release feed is not a release or a list of releases: %w", err)
		}
		list = []feedRelease{one}
	}
	var best release
	for _, r := range list {
		v := canonicalVersion(r.TagName)
		if v == "" || r.Draft || r.Prerelease || semver.Prerelease(v) != "" {
			continue
		}
		if best.Version == "" || semver.Compare(v, best.Version) > 0 {
			best = release{Version: v, URL: r.HTMLURL}
		}
	}
	if best.Version == "" {
		return release{}, errors.New("app: the release feed lists no release")
	}
	if u, err := url.Parse(best.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		best.URL = "" // a link that is not a web page is not shown
	}
	return best, nil
}

// newerRelease reports whether r is newer than the version current. A
// build that is not a release ("dev") is never told to update.
func newerRelease(current string, r release) bool {
	c := canonicalVersion(current)
	return c != "" && semver.Compare(r.Version, c) > 0
}

// fetchRelease reads the feed at feedURL and returns its newest release.
func fetchRelease(ctx context.Context, client *http.Client, feedURL string) (release, error) {
	ctx, cancel := context.WithTimeout(ctx, updateTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, feedURL, nil)
	if err != nil {
		return release{}, fmt.Errorf("app: the release feed: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return release{}, fmt.Errorf("app: the release feed: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return release{}, fmt.Errorf("app: the release feed answered %s", resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxFeedBytes+1))
	if err != nil {
		return release{}, fmt.Errorf("app: the release feed: %w", err)
	}
	if len(b) > maxFeedBytes {
		return release{}, fmt.Errorf("app: the release feed is over %d bytes", maxFeedBytes)
	}
	return parseFeed(b)
}

// checkUpdate reads the settings' release feed, if they name one, off the
// UI goroutine, and says so when a newer Saji is out. A failed check is
// only logged: the person did not ask for this one.
func (u *ui) checkUpdate() {
	feed := u.core.Settings().UpdateFeed
	if feed == "" {
		return
	}
	u.bg.run(func() func() {
		r, err := fetchRelease(context.Background(), http.DefaultClient, feed)
		if err != nil {
			u.core.log.Warn("app: checking for a newer Saji", "feed", feed, "err", err)
			return nil
		}
		if !newerRelease(u.build.Version, r) {
			u.core.log.Debug("app: Saji is up to date", "version", u.build.Version, "latest", r.Version)
			return nil
		}
		return func() { u.showUpdate(r) }
	})
}

// updateText is the notice of release r.
func updateText(r release) string {
	return "Saji " + strings.TrimPrefix(r.Version, "v") + " is available."
}

// showUpdate tells that release r is out, with a link to it.
func (u *ui) showUpdate(r release) {
	content := container.NewVBox(widget.NewLabel(updateText(r) + " This is " + u.build.Version + "."))
	if link, err := url.Parse(r.URL); err == nil && r.URL != "" {
		content.Add(widget.NewHyperlink("Get it from "+link.Host, link))
	}
	dialog.NewCustom("A newer Saji", "Close", content, u.win).Show()
}

// newUpdateFeedEntry is the settings' entry for the release feed.
func newUpdateFeedEntry() *widget.Entry {
	e := widget.NewEntry()
	e.SetPlaceHolder("Release feed URL (empty: never check)")
	return e
}

// parseFeedURL reads the settings' release feed: empty (no check) or an
// http(s) URL; problem says what is wrong with anything else.
func parseFeedURL(text string) (feed, problem string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return "", ""
	}
	u, err := url.Parse(text)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return "", fmt.Sprintf("The release feed must be a web address such as https://example.com/releases/latest, not %q.", text)
	}
	return text, ""
}
