/**
 * The emoji the picker offers: a curated set of the ones teams use most, with words to find them by. A full
 * emoji database would weigh more than the rest of the chat screen; anything else can still be typed in a
 * message.
 */

/** One emoji of the picker, its name (read by screen readers) and the words it is found by. */
export interface EmojiChoice {
  emoji: string;
  name: string;
  words: string;
}

/** The picker's emoji, most used first. */
export const EMOJI: readonly EmojiChoice[] = [
  { emoji: "👍", name: "thumbs up", words: "thumbs up yes ok agree +1 like" },
  { emoji: "❤️", name: "heart", words: "heart love" },
  { emoji: "😂", name: "tears of joy", words: "joy laugh tears funny lol" },
  { emoji: "🎉", name: "party popper", words: "party tada celebrate congrats" },
  { emoji: "🙏", name: "thank you", words: "thanks pray please" },
  { emoji: "👀", name: "eyes", words: "eyes looking watching" },
  { emoji: "🔥", name: "fire", words: "fire hot lit" },
  { emoji: "✅", name: "check mark", words: "check done yes complete" },
  { emoji: "👎", name: "thumbs down", words: "thumbs down no disagree -1" },
  { emoji: "😄", name: "grinning face", words: "smile happy grin" },
  { emoji: "😊", name: "smiling face", words: "blush smile happy" },
  { emoji: "😍", name: "heart eyes", words: "heart eyes love" },
  { emoji: "🤔", name: "thinking face", words: "thinking hmm wonder" },
  { emoji: "😮", name: "surprised face", words: "wow surprised open mouth" },
  { emoji: "😢", name: "crying face", words: "cry sad tear" },
  { emoji: "😅", name: "sweat smile", words: "sweat smile relief phew" },
  { emoji: "🙃", name: "upside-down face", words: "upside down silly" },
  { emoji: "😎", name: "sunglasses", words: "cool sunglasses" },
  { emoji: "🥳", name: "partying face", words: "partying celebrate birthday" },
  { emoji: "🤯", name: "mind blown", words: "mind blown exploding head" },
  { emoji: "😬", name: "grimacing face", words: "grimace awkward yikes" },
  { emoji: "😡", name: "angry face", words: "angry mad rage" },
  { emoji: "🙌", name: "raised hands", words: "raised hands hooray praise" },
  { emoji: "👏", name: "clapping hands", words: "clap applause bravo" },
  { emoji: "👋", name: "waving hand", words: "wave hello hi bye" },
  { emoji: "🤝", name: "handshake", words: "handshake deal agree" },
  { emoji: "💪", name: "flexed biceps", words: "muscle strong flex" },
  { emoji: "👌", name: "OK hand", words: "ok perfect fine" },
  { emoji: "💯", name: "hundred points", words: "hundred 100 perfect" },
  { emoji: "🚀", name: "rocket", words: "rocket ship launch fast" },
  { emoji: "⭐", name: "star", words: "star favourite favorite" },
  { emoji: "✨", name: "sparkles", words: "sparkles shiny new" },
  { emoji: "💡", name: "light bulb", words: "bulb idea light" },
  { emoji: "💭", name: "thought bubble", words: "thought bubble thinking" },
  { emoji: "⚠️", name: "warning", words: "warning caution" },
  { emoji: "❌", name: "cross mark", words: "cross no wrong cancel" },
  { emoji: "❓", name: "question mark", words: "question what" },
  { emoji: "📌", name: "pushpin", words: "pin pushpin important" },
  { emoji: "🐛", name: "bug", words: "bug issue" },
  { emoji: "🛠️", name: "tools", words: "tools fix build" },
  { emoji: "📝", name: "memo", words: "memo note write" },
  { emoji: "📎", name: "paperclip", words: "paperclip attach" },
  { emoji: "🔗", name: "link", words: "link chain url" },
  { emoji: "📅", name: "calendar", words: "calendar date schedule" },
  { emoji: "⏰", name: "alarm clock", words: "alarm clock time deadline" },
  { emoji: "🎯", name: "bullseye", words: "target goal bullseye" },
  { emoji: "☕", name: "coffee", words: "coffee break" },
  { emoji: "🍕", name: "pizza", words: "pizza food lunch" },
];
