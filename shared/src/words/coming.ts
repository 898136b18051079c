/**
 * What a person is told when Duet's back end went away while their answer was
 * being written: the room keeps the turn and finishes it when the back end is
 * back, then puts the answer where this note is. "Try again" would be wrong:
 * asking again would only ask a second time.
 */
export const ANSWER_COMING_NOTE = "⏳ Duet's back end restarted while writing your answer. It is still coming: it will appear here once the back end is back, no need to ask again.";
