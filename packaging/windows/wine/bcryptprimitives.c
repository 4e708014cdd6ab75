/*
 * A stand-in for bcryptprimitives.dll, for Wine 8 (Debian 12's), which
 * lacks it, in the Wine check only (.ci/check-wine copies it into the Wine
 * prefix's system32; it never ships). Go's runtime (1.24 on) loads it at
 * start for ProcessPrng, its random source, and stops without it; every
 * Windows that Go supports has it. ProcessPrng here fills the buffer from
 * BCryptGenRandom with the system's generator, which Wine 8 has.
 */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T n)
{
	while (n > 0) {
		ULONG chunk = n > 0x40000000 ? 0x40000000 : (ULONG)n;
		if (BCryptGenRandom(NULL, data, chunk, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += chunk;
		n -= chunk;
	}
	return TRUE;
}
