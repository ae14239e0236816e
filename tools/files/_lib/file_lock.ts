/** The file tools' lock lives in tools/_lib, shared with fetch_url's save_to. */
export { whileChanging, whileReading } from "../../_lib/file_lock.ts";
