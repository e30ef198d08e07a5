/** A conversation's notice on screen: how many messages it stands for, and when it last changed. */
export interface NoticeGroup {
  count: number;
  at: number;
}

/**
 * Incoming messages grouped per conversation (issue 29): a message arriving while that
 * conversation's notice is still on screen (within `windowMs` of its last update) joins it instead
 * of stacking another notice.
 */
export function joinNoticeGroup(
  previous: NoticeGroup | undefined,
  now: number,
  windowMs: number,
): NoticeGroup {
  return previous && now - previous.at < windowMs
    ? { count: previous.count + 1, at: now }
    : { count: 1, at: now };
}

/** The notice title for a group: the conversation's title, and how many new messages past one. */
export function groupedNoticeTitle(title: string, count: number): string {
  return count <= 1 ? title : `${title} · ${count.toLocaleString('fr-FR')} nouveaux messages`;
}
