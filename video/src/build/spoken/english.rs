//! The English lines of the spoken writer (see `mod.rs` for the slots and the order).

use super::{Bank, Section};

pub(crate) static BANK: Bank = Bank {
    hooks: &[
        "Here is the question for today: {topic}.",
        "Let's talk about something most people get wrong: {topic}.",
        "Stop scrolling for a moment, because this one matters: {topic}.",
        "You have probably wondered about this at least once: {topic}.",
        "This is the video I wish someone had shown me earlier: {topic}.",
        "Today's topic sounds simple, but it is not: {topic}.",
    ],
    promise_short: "In the next minute and a half, you will hear why it matters, how to start, and the one mistake to skip.",
    promise_normal: "In the next few minutes, you will hear why it matters, the ideas behind it, how to start this week, the mistakes to skip, a plan for your first month, and answers to the usual questions.",
    sections: &[
        Section {
            transition: "First, why should you care?",
            lines: &[
                "Most people treat this as a someday project, and someday never comes.",
                "The cost of ignoring it is small on day one, which is exactly why it is easy to put off.",
                "Over a few months, small gaps here add up to lost time, missed chances and needless stress.",
                "Getting it right does the opposite: it saves time, builds trust and makes every next step easier.",
                "The people who get this right are rarely more talented; they simply decided earlier what good looks like.",
                "So before you change anything, say in one sentence what success would look like for you.",
                "If you cannot say it in one sentence yet, that is the first thing to fix.",
            ],
        },
        Section {
            transition: "Now, the ideas that carry most of the weight.",
            lines: &[
                "Three ideas do most of the work here.",
                "The first is about deciding what you actually want, and for whom.",
                "The second is about a routine that keeps you moving without relying on motivation.",
                "The third is about checking results honestly, so you keep what works and drop what does not.",
                "None of this needs special tools or a big budget.",
                "When one of the three is missing, the other two slowly lose their effect.",
                "Think of them as a loop, not a checklist: decide, act, review, and go again.",
            ],
        },
        Section {
            transition: "So how do you start?",
            lines: &[
                "Pick one situation this week where this applies to you.",
                "Describe where you are today in plain words, including what is not working.",
                "Choose one change you can make in under an hour, and make it today instead of planning it further.",
                "Tell the people it affects what you are changing and why, so they can back you up.",
                "Keep a short note of what happened, because memory is kind to plans and hard on results.",
                "After a week, compare that note with your success sentence and adjust one thing.",
                "Repeat that small cycle, and a good idea turns into a habit you can rely on.",
            ],
        },
        Section {
            transition: "Here are the mistakes to skip.",
            lines: &[
                "The biggest one is trying to change everything at once, which usually ends with changing nothing.",
                "Another is copying what worked for someone else without checking that their situation matches yours.",
                "A quieter mistake is measuring effort instead of outcome; it feels productive and hides the real problem.",
                "Ignoring feedback is costly, because the people closest to the work often see problems first.",
                "And please do not stop after the first setback; that setback already paid for the lesson.",
                "Expect the first attempt to be rough, and plan the second one before you begin.",
            ],
        },
        Section {
            transition: "Next, a simple plan for your first month.",
            lines: &[
                "In week one, set the goal and the one number that tells you whether it is working.",
                "In week two, make the first small change and write down what you notice.",
                "In week three, bring in one other person and ask for honest feedback on what changed.",
                "In week four, look at your number, keep the change if it helped, and choose the next one.",
                "Put thirty minutes in your calendar every week for that review, and protect that time.",
                "By the end of the month you will have evidence instead of guesses, and every later decision gets easier.",
            ],
        },
        Section {
            transition: "And finally, a few questions people often ask.",
            lines: &[
                "How long until you see results? Usually a few weeks for the first signs, and a few months for lasting change.",
                "Do you need money to start? Rarely; being clear and consistent matters far more than a budget.",
                "What if the people around you are not convinced? Show them one small result before you ask for more.",
                "How do you know it is working? Look at the number you chose in week one, not at how busy you feel.",
                "What if things change along the way? Keep the goal, adapt the method, and review again at the end of the month.",
            ],
        },
    ],
    recaps: &[
        "So, back to the question: {topic}. Decide what good looks like, act in small steps, and review honestly.",
        "That is the answer to {topic}: one clear goal, one small step at a time, and an honest look at the results.",
        "The short version of {topic}: be clear about the goal, start small, and keep what works.",
    ],
    calls: &[
        "Try one step from this video today, and follow for more videos like this one.",
        "Save this video for later, and share it with someone who needs it this week.",
        "Follow for more practical tips like this, and tell us in the comments what you will try first.",
        "If this helped, share it with a friend and follow so you do not miss the next one.",
    ],
};
