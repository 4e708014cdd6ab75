//go:build windows

package cli

import (
	"log"
	"os"

	"golang.org/x/sys/windows"
)

// The released saji.exe is linked as a GUI program (-H windowsgui): opened
// from the Start menu or a double-clicked .gguf file, it shows its window
// and no console. Windows gives such a program no standard streams, so a
// headless command typed in a terminal (saji version, saji serve) would
// print nothing. At start, a process whose standard output or error is
// missing attaches to its parent's console, if it has one, and opens it for
// the missing streams. Streams the parent redirected (a pipe, a file) are
// inherited as they are and kept; a console build has its own and attaches
// nothing.
//
// The other route, a console program that hides its console when Explorer
// started it, flashes a console window at every launch of the app, and a
// second saji-cli.exe would make the documented commands differ by
// platform. What this costs: cmd.exe does not wait for a GUI program, so
// its prompt returns at once and the command's output follows it
// (PowerShell's Start-Process -Wait, or a pipe, waits).
func init() { attachParentConsole() }

// attachParentProcess is AttachConsole's argument for the parent's console.
const attachParentProcess = ^uint32(0) // (DWORD)-1

// attachParentConsole attaches to the parent's console when a standard
// output stream is missing, and points the missing streams at it.
func attachParentConsole() {
	if hasStdHandle(windows.STD_OUTPUT_HANDLE) && hasStdHandle(windows.STD_ERROR_HANDLE) {
		return
	}
	attach := windows.NewLazySystemDLL("kernel32.dll").NewProc("AttachConsole")
	if r, _, _ := attach.Call(uintptr(attachParentProcess)); r == 0 {
		return // no parent console: started from Explorer or the Start menu
	}
	if !hasStdHandle(windows.STD_INPUT_HANDLE) {
		if f := openConsole("CONIN$", windows.STD_INPUT_HANDLE, "/dev/stdin"); f != nil {
			os.Stdin = f
		}
	}
	if !hasStdHandle(windows.STD_OUTPUT_HANDLE) {
		if f := openConsole("CONOUT$", windows.STD_OUTPUT_HANDLE, "/dev/stdout"); f != nil {
			os.Stdout = f
		}
	}
	if !hasStdHandle(windows.STD_ERROR_HANDLE) {
		if f := openConsole("CONOUT$", windows.STD_ERROR_HANDLE, "/dev/stderr"); f != nil {
			os.Stderr = f
			log.SetOutput(f) // the log package took the old os.Stderr at its start
		}
	}
}

// hasStdHandle reports whether the standard stream std is a usable handle.
func hasStdHandle(std uint32) bool {
	h, err := windows.GetStdHandle(std)
	if err != nil || h == 0 || h == windows.InvalidHandle {
		return false
	}
	_, err = windows.GetFileType(h)
	return err == nil
}

// openConsole opens the console device name (CONIN$ or CONOUT$), makes it
// the standard stream std and returns it as a file, or nil on failure.
func openConsole(name string, std uint32, file string) *os.File {
	p, err := windows.UTF16PtrFromString(name)
	if err != nil {
		return nil
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ|windows.GENERIC_WRITE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return nil
	}
	if err := windows.SetStdHandle(std, h); err != nil {
		windows.CloseHandle(h)
		return nil
	}
	return os.NewFile(uintptr(h), file)
}
