; Saji's Windows installer, built by makensis (Debian's nsis) in
; .ci/package-windows:
;   makensis -DVERSION=0.1.0 -DVERSION_WIN=0.1.0.0 -DEXE=saji.exe \
;            -DICON=saji.ico -DOUTFILE=saji-0.1.0-windows-amd64-setup.exe saji.nsi
; A per-user install: no administrator, the program under
; %LOCALAPPDATA%\Programs\Saji, a Start menu entry, .gguf files opened with
; saji.exe "%1", an uninstaller listed in Add/Remove Programs with the version.
; The models, settings and database (%APPDATA%, %LOCALAPPDATA%\saji) are the
; user's and stay on uninstall. The installer is a 64-bit program, as Saji is
; (and Wine without its 32-bit half runs it).
Target amd64-unicode

!ifndef VERSION
	!error "define VERSION, VERSION_WIN, EXE, ICON and OUTFILE (see the top of saji.nsi)"
!endif
!ifndef VERSION_WIN
	!error "define VERSION, VERSION_WIN, EXE, ICON and OUTFILE (see the top of saji.nsi)"
!endif
!ifndef EXE
	!error "define VERSION, VERSION_WIN, EXE, ICON and OUTFILE (see the top of saji.nsi)"
!endif
!ifndef ICON
	!error "define VERSION, VERSION_WIN, EXE, ICON and OUTFILE (see the top of saji.nsi)"
!endif
!ifndef OUTFILE
	!error "define VERSION, VERSION_WIN, EXE, ICON and OUTFILE (see the top of saji.nsi)"
!endif

!include "MUI2.nsh"
!include "FileFunc.nsh"

!define APPID "io.saji.Saji"
!define PROGID "io.saji.Saji.gguf"
!define UNINSTKEY "Software\Microsoft\Windows\CurrentVersion\Uninstall\${APPID}"
; SHChangeNotify(SHCNE_ASSOCCHANGED): Explorer rereads the associations.
!define NOTIFY_ASSOC "shell32::SHChangeNotify(i 0x08000000, i 0, p 0, p 0)"

Name "Saji"
OutFile "${OUTFILE}"
RequestExecutionLevel user
InstallDir "$LOCALAPPDATA\Programs\Saji"
InstallDirRegKey HKCU "${UNINSTKEY}" "InstallLocation"
SetCompressor /SOLID lzma
ShowInstDetails nevershow

VIProductVersion "${VERSION_WIN}"
VIFileVersion "${VERSION_WIN}"
VIAddVersionKey "ProductName" "Saji"
VIAddVersionKey "ProductVersion" "${VERSION}"
VIAddVersionKey "FileVersion" "${VERSION}"
VIAddVersionKey "FileDescription" "Saji installer"
VIAddVersionKey "LegalCopyright" "Saji"

!define MUI_ICON "${ICON}"
!define MUI_UNICON "${ICON}"
!define MUI_FINISHPAGE_RUN "$INSTDIR\saji.exe"
!define MUI_FINISHPAGE_RUN_TEXT "Open Saji"
!insertmacro MUI_PAGE_WELCOME
!insertmacro MUI_PAGE_DIRECTORY
!insertmacro MUI_PAGE_INSTFILES
!insertmacro MUI_PAGE_FINISH
!insertmacro MUI_UNPAGE_CONFIRM
!insertmacro MUI_UNPAGE_INSTFILES
!insertmacro MUI_LANGUAGE "English"

Section "Saji"
	SetShellVarContext current
	SetOutPath "$INSTDIR"
	File "/oname=saji.exe" "${EXE}"
	WriteUninstaller "$INSTDIR\uninstall.exe"
	CreateShortcut "$SMPROGRAMS\Saji.lnk" "$INSTDIR\saji.exe" "" "$INSTDIR\saji.exe" 0

	; .gguf files: Saji is offered in "Open with" always, and is the default
	; where no other program is.
	WriteRegStr HKCU "Software\Classes\${PROGID}" "" "GGUF model"
	WriteRegStr HKCU "Software\Classes\${PROGID}\DefaultIcon" "" "$INSTDIR\saji.exe,0"
	WriteRegStr HKCU "Software\Classes\${PROGID}\shell\open\command" "" '"$INSTDIR\saji.exe" "%1"'
	WriteRegStr HKCU "Software\Classes\.gguf\OpenWithProgids" "${PROGID}" ""
	ReadRegStr $0 HKCU "Software\Classes\.gguf" ""
	StrCmp $0 "" 0 +2
		WriteRegStr HKCU "Software\Classes\.gguf" "" "${PROGID}"
	System::Call "${NOTIFY_ASSOC}"

	; Add/Remove Programs.
	${GetSize} "$INSTDIR" "/S=0K" $0 $1 $2
	WriteRegStr HKCU "${UNINSTKEY}" "DisplayName" "Saji"
	WriteRegStr HKCU "${UNINSTKEY}" "DisplayVersion" "${VERSION}"
	WriteRegStr HKCU "${UNINSTKEY}" "Publisher" "Saji"
	WriteRegStr HKCU "${UNINSTKEY}" "DisplayIcon" "$INSTDIR\saji.exe,0"
	WriteRegStr HKCU "${UNINSTKEY}" "InstallLocation" "$INSTDIR"
	WriteRegStr HKCU "${UNINSTKEY}" "UninstallString" '"$INSTDIR\uninstall.exe"'
	WriteRegStr HKCU "${UNINSTKEY}" "QuietUninstallString" '"$INSTDIR\uninstall.exe" /S'
	WriteRegDWORD HKCU "${UNINSTKEY}" "EstimatedSize" $0
	WriteRegDWORD HKCU "${UNINSTKEY}" "NoModify" 1
	WriteRegDWORD HKCU "${UNINSTKEY}" "NoRepair" 1
SectionEnd

Section "Uninstall"
	SetShellVarContext current
	Delete "$INSTDIR\saji.exe"
	Delete "$INSTDIR\uninstall.exe"
	RMDir "$INSTDIR"
	Delete "$SMPROGRAMS\Saji.lnk"

	DeleteRegKey HKCU "Software\Classes\${PROGID}"
	DeleteRegValue HKCU "Software\Classes\.gguf\OpenWithProgids" "${PROGID}"
	ReadRegStr $0 HKCU "Software\Classes\.gguf" ""
	StrCmp $0 "${PROGID}" 0 +2
		DeleteRegValue HKCU "Software\Classes\.gguf" ""
	DeleteRegKey /ifempty HKCU "Software\Classes\.gguf\OpenWithProgids"
	DeleteRegKey /ifempty HKCU "Software\Classes\.gguf"
	System::Call "${NOTIFY_ASSOC}"

	DeleteRegKey HKCU "${UNINSTKEY}"
SectionEnd
