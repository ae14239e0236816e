/*
 * A stand-in for Windows 10's bcryptprimitives.dll, which Wine 8 lacks and the bun runtime
 * imports for ProcessPrng: the same bytes from RtlGenRandom (SystemFunction036). For trying the
 * Windows binary under Wine only (scripts/wine_smoke.ts); never shipped.
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll bcryptprimitives.c -ladvapi32
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
  while (length > 0) {
    ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
    if (!SystemFunction036(data, chunk)) return FALSE;
    data += chunk;
    length -= chunk;
  }
  return TRUE;
}
