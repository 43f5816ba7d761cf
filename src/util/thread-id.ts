/** This thread's Linux task id, from /proc/thread-self (/proc/<pid>/task/<tid>); throws where there is none. */
import { readlinkSync } from 'node:fs';

export function threadTaskId(): number {
  return Number(readlinkSync('/proc/thread-self').split('/').pop());
}
