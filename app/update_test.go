package app

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
)

func TestParseFeed(t *testing.T) {
	tests := []struct {
		name, feed   string
		version, url string
		wantErr      string
	}{
		{"latest", `{"tag_name":"v1.4.0","html_url":"https://example.com/r/v1.4.0"}`, "v1.4.0", "https://example.com/r/v1.4.0", ""},
		{"a tag without v", `{"tag_name":"2.0","html_url":"https://example.com/2"}`, "v2.0", "https://example.com/2", ""},
		{"the newest stable of a list", `[{"tag_name":"v1.2.0","html_url":"https://e/1.2"},
			{"tag_name":"v1.10.0","html_url":"https://e/1.10"},
			{"tag_name":"v2.0.0","draft":true},
			{"tag_name":"v1.11.0","prerelease":true},
			{"tag_name":"v1.12.0-rc1"},
			{"tag_name":"nightly"}]`, "v1.10.0", "https://e/1.10", ""},
		{"a link that is not a web page", `{"tag_name":"v1.0.0","html_url":"file:///etc/passwd"}`, "v1.0.0", "", ""},
		{"no release", `[]`, "", "", "lists no release"},
		{"no version", `{"tag_name":"latest"}`, "", "", "lists no release"},
		{"not JSON", `<feed/>`, "", "", "not a release"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := parseFeed([]byte(tt.feed))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Version != tt.version || r.URL != tt.url {
				t.Errorf("got %+v, want %s at %q", r, tt.version, tt.url)
			}
		})
	}
}

func TestNewerRelease(t *testing.T) {
	tests := []struct {
		current, latest string
		want            bool
	}{
		{"v1.0.0", "v1.1.0", true},
		{"1.0.0", "v1.0.1", true},
		{"v1.2.0", "v1.2.0", false},
		{"v1.10.0", "v1.9.0", false},
		{"v1.2.0-rc1", "v1.2.0", true},
		{"dev", "v9.0.0", false},
		{"", "v9.0.0", false},
	}
	for _, tt := range tests {
		if got := newerRelease(tt.current, release{Version: tt.latest}); got != tt.want {
			t.Errorf("newerRelease(%q, %q) = %v, want %v", tt.current, tt.latest, got, tt.want)
		}
	}
}

func TestFetchRelease(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/latest":
			w.Write([]byte(`{"tag_name":"v1.3.0","html_url":"https://example.com/v1.3.0"}`))
		case "/huge":
			w.Write([]byte(`[` + strings.Repeat(`{"tag_name":"v1.0.0"},`, maxFeedBytes/20) + `{}]`))
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	r, err := fetchRelease(t.Context(), srv.Client(), srv.URL+"/latest")
	if err != nil || r.Version != "v1.3.0" {
		t.Errorf("got %+v, %v", r, err)
	}
	if _, err := fetchRelease(t.Context(), srv.Client(), srv.URL+"/gone"); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("a missing feed: %v", err)
	}
	if _, err := fetchRelease(t.Context(), srv.Client(), srv.URL+"/huge"); err == nil || !strings.Contains(err.Error(), "over") {
		t.Errorf("a huge feed: %v", err)
	}
}

// feedServer serves a feed whose latest release is version, counting the
// requests.
func feedServer(t *testing.T, version string) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		n.Add(1)
		w.Write([]byte(`{"tag_name":"` + version + `","html_url":"https://example.com/saji/` + version + `"}`))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// checkFeed sets the release feed and runs the update check.
func checkFeed(t *testing.T, u *ui, feed string) {
	t.Helper()
	s := u.core.Settings()
	s.UpdateFeed = feed
	if err := u.core.SetSettings(s); err != nil {
		t.Fatal(err)
	}
	u.checkUpdate()
	u.bg.wait()
}

func TestUpdateCheck(t *testing.T) {
	srv, requests := feedServer(t, "v1.2.0")
	u := newTestUI(t, &fakeGen{})
	u.build.Version = "v1.1.0"

	// Off by default: no feed, no request.
	if feed := u.core.Settings().UpdateFeed; feed != "" {
		t.Fatalf("a release feed by default: %q", feed)
	}
	u.checkUpdate()
	u.bg.wait()
	if requests.Load() != 0 || u.win.Canvas().Overlays().Top() != nil {
		t.Fatal("the update check ran without a feed")
	}

	checkFeed(t, u, srv.URL)
	if requests.Load() != 1 {
		t.Fatalf("%d requests to the feed, want 1", requests.Load())
	}
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no notice of the newer Saji")
	}
	if !findLabelContaining(top, "Saji 1.2.0 is available.") {
		t.Error("the notice does not name the new version")
	}
	var link *widget.Hyperlink
	for _, o := range test.LaidOutObjects(top) {
		if h, ok := o.(*widget.Hyperlink); ok {
			link = h
		}
	}
	if link == nil || link.URL.String() != "https://example.com/saji/v1.2.0" {
		t.Errorf("the notice's link %v", link)
	}
}

func TestUpdateCheckUpToDate(t *testing.T) {
	srv, requests := feedServer(t, "v1.1.0")
	u := newTestUI(t, &fakeGen{})
	u.build.Version = "v1.1.0"
	checkFeed(t, u, srv.URL)
	if requests.Load() != 1 || u.win.Canvas().Overlays().Top() != nil {
		t.Errorf("up to date: %d requests, notice %v", requests.Load(), u.win.Canvas().Overlays().Top())
	}
}

func TestAbout(t *testing.T) {
	u := newTestUI(t, &fakeGen{})
	u.build = buildInfo{Version: "v1.2.3", Commit: "abc1234", Date: "2026-12-05T06:00:00Z"}
	u.showAbout()
	top := u.win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no About dialog")
	}
	for _, want := range []string{"Version: v1.2.3", "Commit: abc1234", "Built: 2026-12-05T06:00:00Z", "Models: "} {
		if !findLabelContaining(top, want) {
			t.Errorf("About lacks %q", want)
		}
	}
	u.build = buildInfo{}
	if text := u.aboutText(); !strings.Contains(text, "Commit: unknown") {
		t.Errorf("About without a build stamp: %q", text)
	}
}

func TestSettingsUpdateFeed(t *testing.T) {
	tests := []struct {
		text, want, problem string
	}{
		{"", "", ""},
		{"  https://example.com/releases/latest ", "https://example.com/releases/latest", ""},
		{"http://127.0.0.1:8080/feed", "http://127.0.0.1:8080/feed", ""},
		{"ftp://example.com/feed", "", "must be a web address"},
		{"example.com/feed", "", "must be a web address"},
		{"https://", "", "must be a web address"},
	}
	for _, tt := range tests {
		f := settingsForm{Folder: "/models", Threads: "0", GPULayers: "Auto", Context: "4096", UpdateFeed: tt.text}
		s, problem := f.apply(Settings{})
		if !strings.Contains(problem, tt.problem) || (tt.problem == "") != (problem == "") {
			t.Errorf("%q: problem %q, want %q", tt.text, problem, tt.problem)
		}
		if problem == "" && s.UpdateFeed != tt.want {
			t.Errorf("%q: feed %q, want %q", tt.text, s.UpdateFeed, tt.want)
		}
	}
}

// FuzzParseFeed checks that no feed makes the parser panic and that what
// it returns is a stable version and a web link or none.
func FuzzParseFeed(f *testing.F) {
	f.Add([]byte(`{"tag_name":"v1.4.0","html_url":"https://example.com/r"}`))
	f.Add([]byte(`[{"tag_name":"v1.2.0"},{"tag_name":"2.0","draft":true}]`))
	f.Add([]byte(`{"tag_name":"v1.0.0-rc.1"}`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := parseFeed(b)
		if err != nil {
			return
		}
		if canonicalVersion(r.Version) != r.Version || strings.Contains(r.Version, "-") {
			t.Fatalf("version %q", r.Version)
		}
		if r.URL != "" && !strings.HasPrefix(r.URL, "http") {
			t.Fatalf("link %q", r.URL)
		}
	})
}
