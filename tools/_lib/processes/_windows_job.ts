/**
 * Windows Job Objects, where the runtime has FFI (bun:ffi, which the compiled binary has): each
 * command's process goes into a job of its own, created with JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE.
 * Its descendants join the job as they start, so ending the job ends them all, including those
 * whose parent has already exited (which `taskkill /T` cannot find); and the jobs' handles are
 * closed by Windows when toolhost ends in any way, killed outright too, which ends every command
 * still running. Without FFI (Deno from source), or when a call fails, nothing is made and
 * _process_groups.ts falls back to taskkill /T /F.
 *
 * The process is assigned just after it started (node cannot start it suspended): a child it
 * starts in that instant is outside the job, and taskkill /T still runs after the job's end.
 */
import process from "node:process";

/** JOBOBJECT_EXTENDED_LIMIT_INFORMATION on 64-bit Windows: 144 bytes, LimitFlags at 16. */
export const EXTENDED_LIMIT_SIZE = 144;
export const LIMIT_FLAGS_OFFSET = 16;
export const JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE = 0x2000;
const JOB_OBJECT_EXTENDED_LIMIT_INFORMATION = 9;
const PROCESS_SET_QUOTA = 0x0100;
const PROCESS_TERMINATE = 0x0001;

/** The limit block that makes a job kill its processes when its last handle closes. */
export function killOnCloseLimits(): Uint8Array {
  const block = new Uint8Array(EXTENDED_LIMIT_SIZE);
  new DataView(block.buffer).setUint32(
    LIMIT_FLAGS_OFFSET,
    JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    true,
  );
  return block;
}

/** A job's handle as bun:ffi gives it. */
export type JobHandle = number | bigint;
type Handle = JobHandle;
interface Kernel32 {
  CreateJobObjectW(attributes: null, name: null): Handle | null;
  SetInformationJobObject(job: Handle, kind: number, info: unknown, size: number): number;
  OpenProcess(access: number, inherit: number, pid: number): Handle | null;
  AssignProcessToJobObject(job: Handle, process: Handle): number;
  TerminateJobObject(job: Handle, code: number): number;
  CloseHandle(handle: Handle): number;
}

let kernel32: Kernel32 | null | undefined;
let pointerOf: ((block: Uint8Array) => unknown) | undefined;

/** kernel32 through bun:ffi, loaded once; null where there is no such FFI. */
async function load(): Promise<Kernel32 | null> {
  if (process.platform !== "win32" || !("Bun" in globalThis)) return null;
  try {
    const specifier = "bun:ffi"; // not a literal: Deno's type check has no such module
    const ffi = await import(specifier);
    const handle = { args: [] as string[], returns: "ptr" };
    const { symbols } = ffi.dlopen("kernel32.dll", {
      CreateJobObjectW: { ...handle, args: ["ptr", "ptr"] },
      SetInformationJobObject: { args: ["ptr", "i32", "ptr", "u32"], returns: "i32" },
      OpenProcess: { ...handle, args: ["u32", "i32", "u32"] },
      AssignProcessToJobObject: { args: ["ptr", "ptr"], returns: "i32" },
      TerminateJobObject: { args: ["ptr", "u32"], returns: "i32" },
      CloseHandle: { args: ["ptr"], returns: "i32" },
    });
    pointerOf = ffi.ptr;
    return symbols as Kernel32;
  } catch {
    return null;
  }
}

/** Started at import on Windows, so that it is ready by the first command. */
const loading = load().then((api) => (kernel32 = api));

/** Whether jobs can be made here (false until loading is done, and without FFI). */
export function jobsAvailable(): boolean {
  return !!kernel32;
}

/** Waits for the FFI to be loaded (or found missing). */
export function jobsReady(): Promise<unknown> {
  return loading;
}

/** Puts `pid` into a new kill-on-close job; the job's handle, or undefined when that failed. */
export function jobFor(pid: number): Handle | undefined {
  const k = kernel32;
  if (!k || !pointerOf) return undefined;
  const job = k.CreateJobObjectW(null, null);
  if (!job) return undefined;
  const limits = killOnCloseLimits();
  const proc = k.OpenProcess(PROCESS_SET_QUOTA | PROCESS_TERMINATE, 0, pid);
  const ok = k.SetInformationJobObject(
        job,
        JOB_OBJECT_EXTENDED_LIMIT_INFORMATION,
        pointerOf(limits),
        EXTENDED_LIMIT_SIZE,
      ) !== 0 && !!proc && k.AssignProcessToJobObject(job, proc) !== 0;
  if (proc) k.CloseHandle(proc);
  if (!ok) {
    k.CloseHandle(job);
    return undefined;
  }
  return job;
}

/** Ends every process in the job; false when that failed. The handle stays open. */
export function endJob(job: Handle): boolean {
  return !!kernel32 && kernel32.TerminateJobObject(job, 1) !== 0;
}

/** Closes the job's handle: what is still in it then ends (kill on close). */
export function closeJob(job: Handle): void {
  kernel32?.CloseHandle(job);
}
