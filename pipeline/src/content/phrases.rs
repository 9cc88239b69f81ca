//! The embedded writer's own sentences, in English and Vietnamese: section headings and the
//! explanations that grow a short idea into a full piece, hooks and calls to action. Slots:
//! `{topic}` (the idea or page title, always quoted or after a colon so any phrase reads),
//! `{k1}` … `{k3}` (the research's keywords).
//!
//! How a five-word idea reaches 600 words honestly: the blog takes the six sections below in
//! order; each section says one thing about the topic (why it matters, its parts, practice,
//! mistakes, a first-month plan, what to keep) in sentences that name the topic and its
//! keywords. Nothing is filler text: every sentence is advice that holds for the topic, and
//! a source's own sentences always come first when there are any (`formats::blog`).

use foundation::model::Language;

/// A section of a blog post: its heading and the explanations it can grow with.
pub struct Section {
    pub heading: &'static str,
    pub lines: &'static [&'static str],
}

/// Every phrase of one language.
pub struct Phrases {
    pub intro: &'static [&'static str],
    pub sections: &'static [Section],
    pub conclusion_heading: &'static str,
    pub conclusion: &'static [&'static str],
    pub facebook_hook: &'static str,
    pub facebook_cta: &'static str,
    pub x_hook: &'static str,
    pub x_cta: &'static str,
    pub linkedin_hook: &'static str,
    pub linkedin_takeaways: &'static str,
    pub linkedin_question: &'static str,
}

/// The phrases of `language`.
pub fn of(language: Language) -> &'static Phrases {
    match language {
        Language::English => &ENGLISH,
        Language::Vietnamese => &VIETNAMESE,
    }
}

/// `template` with its slots filled.
pub fn fill(template: &str, topic: &str, keywords: [&str; 3]) -> String {
    template
        .replace("{topic}", topic)
        .replace("{k1}", keywords[0])
        .replace("{k2}", keywords[1])
        .replace("{k3}", keywords[2])
}

static ENGLISH: Phrases = Phrases {
    intro: &[
        "This article looks at one question in depth: “{topic}”.",
        "It explains why the subject deserves attention, what it is made of, how to put it into practice and which mistakes to avoid.",
        "Each section ends with something you can do this week, so the ideas turn into results instead of staying on the page.",
    ],
    sections: &[
        Section {
            heading: "Why it matters",
            lines: &[
                "Most people meet a subject like this as a vague intention; it starts to matter when it changes what happens every week.",
                "The cost of ignoring it is rarely visible on day one, which is exactly why it is easy to postpone.",
                "Over months, small gaps around {k1} add up to missed chances, slower decisions and avoidable stress.",
                "Getting it right does the opposite: it saves time, builds trust and makes the next step easier.",
                "People who handle {k1} and {k2} well are usually not more talented; they simply decided earlier what good looks like.",
                "That is why the question deserves a clear answer rather than a quick opinion.",
                "Before changing anything, write down in one sentence what success would look like for you.",
            ],
        },
        Section {
            heading: "The key ideas",
            lines: &[
                "Three ideas carry most of the weight: {k1}, {k2} and {k3}.",
                "The first, {k1}, is about deciding what you actually want to achieve and for whom.",
                "The second, {k2}, is about the routine that makes progress happen without constant effort.",
                "The third, {k3}, is about checking results honestly so that you keep what works and drop what does not.",
                "None of these needs special tools; each needs attention and a little discipline.",
                "When one of the three is missing, the other two slowly lose their effect.",
                "Treat them as a loop rather than a checklist: decide, act, review, and start again.",
            ],
        },
        Section {
            heading: "Putting it into practice",
            lines: &[
                "Start small: pick one situation this week where {k1} clearly applies.",
                "Describe the current state in plain words, including what is not working.",
                "Choose one change you can make in under an hour and make it today rather than planning it further.",
                "Tell the people affected what you are changing and why, so that they can support it.",
                "Keep a short note of what happened, because memory is kind to plans and hard on results.",
                "After a week, compare the note with your success sentence and adjust one thing.",
                "Repeating this simple cycle is what turns a good idea into a reliable habit.",
            ],
        },
        Section {
            heading: "Mistakes to avoid",
            lines: &[
                "The most common mistake is trying to change everything at once, which usually ends with changing nothing.",
                "Another is copying what worked for someone else without checking whether their situation matches yours.",
                "Many people also measure activity instead of outcome, which feels productive but hides real problems.",
                "Ignoring feedback about {k2} is costly, because the people closest to the work often see issues first.",
                "Finally, stopping after the first setback throws away the learning that the setback just paid for.",
                "A useful rule is to expect the first attempt to be imperfect and to plan the second one in advance.",
            ],
        },
        Section {
            heading: "A simple plan for the first month",
            lines: &[
                "In week one, define the goal and the one measure that tells you whether it is working.",
                "In week two, make the first small change around {k1} and write down what you notice.",
                "In week three, involve one other person and ask for honest feedback on {k2}.",
                "In week four, review the measure, keep the change if it helped and choose the next one.",
                "Block thirty minutes in your calendar each week for this review, and protect that time.",
                "By the end of the month you will have evidence instead of assumptions, which makes every later decision easier.",
            ],
        },
        Section {
            heading: "Questions people ask",
            lines: &[
                "How long does it take to see results? Usually a few weeks for the first signs and a few months for lasting change.",
                "Do you need a budget? Rarely at the start; clarity and consistency matter far more than money.",
                "What if the people around you are not convinced? Show them one small result before asking for a bigger commitment.",
                "How do you know it is working? Look at the measure you chose in week one, not at how busy you feel.",
                "What if circumstances change? Keep the goal, adapt the method, and review again at the end of the month.",
            ],
        },
    ],
    conclusion_heading: "Key takeaways",
    conclusion: &[
        "The question “{topic}” has a practical answer: decide what good looks like, act on it in small steps and review honestly.",
        "Focus on {k1}, build a routine around {k2} and check results through {k3}.",
        "Choose one step from this article and take it today; that first step is what makes the rest possible.",
    ],
    facebook_hook: "{topic} — here is what most people miss 👇",
    facebook_cta: "What is your experience with {k1}? Tell us in the comments, and share this post with someone who needs it today.",
    x_hook: "{topic}: a short thread on what actually works 🧵",
    x_cta: "If this helped, follow for more on {k1}, and repost the first post so others can find it.",
    linkedin_hook: "{topic}.",
    linkedin_takeaways: "What I would keep in mind:",
    linkedin_question: "How do you handle {k1} in your team? I would like to hear what has worked for you.",
};

static VIETNAMESE: Phrases = Phrases {
    intro: &[
        "Bài viết này đi sâu vào một câu hỏi: “{topic}”.",
        "Bài giải thích vì sao chủ đề đáng được quan tâm, nó gồm những gì, áp dụng vào thực tế ra sao và cần tránh những sai lầm nào.",
        "Mỗi phần đều kết thúc bằng một việc bạn có thể làm ngay trong tuần này, để ý tưởng biến thành kết quả thay vì chỉ nằm trên trang giấy.",
    ],
    sections: &[
        Section {
            heading: "Vì sao điều này quan trọng",
            lines: &[
                "Phần lớn chúng ta gặp một chủ đề như thế này dưới dạng một ý định mơ hồ; nó chỉ thật sự quan trọng khi thay đổi những gì diễn ra mỗi tuần.",
                "Cái giá của việc bỏ qua nó hiếm khi lộ ra ngay từ ngày đầu, và vì thế rất dễ bị trì hoãn.",
                "Qua nhiều tháng, những thiếu sót nhỏ quanh {k1} cộng dồn thành cơ hội bị bỏ lỡ, quyết định chậm hơn và áp lực không đáng có.",
                "Làm đúng thì ngược lại: tiết kiệm thời gian, tạo dựng niềm tin và giúp bước tiếp theo dễ dàng hơn.",
                "Những người làm tốt {k1} và {k2} thường không giỏi hơn ai; họ chỉ quyết định sớm hơn thế nào là làm tốt.",
                "Đó là lý do câu hỏi này cần một câu trả lời rõ ràng chứ không phải một ý kiến vội vàng.",
                "Trước khi thay đổi điều gì, hãy viết ra một câu mô tả thành công trông như thế nào đối với bạn.",
            ],
        },
        Section {
            heading: "Những ý chính",
            lines: &[
                "Ba ý mang phần lớn sức nặng: {k1}, {k2} và {k3}.",
                "Ý thứ nhất, {k1}, là quyết định điều bạn thật sự muốn đạt được và dành cho ai.",
                "Ý thứ hai, {k2}, là thói quen giúp tiến bộ diễn ra mà không cần cố gắng liên tục.",
                "Ý thứ ba, {k3}, là kiểm tra kết quả một cách trung thực để giữ lại điều hiệu quả và bỏ điều không hiệu quả.",
                "Không ý nào cần công cụ đặc biệt; mỗi ý chỉ cần sự chú tâm và một chút kỷ luật.",
                "Khi thiếu một trong ba ý, hai ý còn lại cũng dần mất tác dụng.",
                "Hãy coi chúng là một vòng lặp thay vì một danh sách: quyết định, hành động, xem lại, rồi bắt đầu lại.",
            ],
        },
        Section {
            heading: "Áp dụng vào thực tế",
            lines: &[
                "Hãy bắt đầu nhỏ: chọn một tình huống trong tuần này mà {k1} rõ ràng có liên quan.",
                "Mô tả hiện trạng bằng lời đơn giản, kể cả những điều đang chưa ổn.",
                "Chọn một thay đổi có thể làm trong chưa đầy một giờ và làm ngay hôm nay thay vì tiếp tục lên kế hoạch.",
                "Cho những người liên quan biết bạn đang thay đổi điều gì và vì sao, để họ có thể hỗ trợ.",
                "Ghi lại ngắn gọn những gì đã xảy ra, vì trí nhớ thường dễ dãi với kế hoạch nhưng khắt khe với kết quả.",
                "Sau một tuần, so sánh ghi chép với câu mô tả thành công và điều chỉnh một điều.",
                "Lặp lại vòng đơn giản này chính là cách biến một ý tưởng hay thành một thói quen đáng tin cậy.",
            ],
        },
        Section {
            heading: "Những sai lầm cần tránh",
            lines: &[
                "Sai lầm phổ biến nhất là muốn thay đổi mọi thứ cùng lúc, và thường kết thúc bằng việc chẳng thay đổi được gì.",
                "Một sai lầm khác là sao chép cách làm của người khác mà không kiểm tra xem hoàn cảnh của họ có giống mình không.",
                "Nhiều người cũng đo mức độ bận rộn thay vì kết quả, điều này tạo cảm giác hiệu quả nhưng che giấu vấn đề thật.",
                "Bỏ qua góp ý về {k2} rất tốn kém, vì những người gần công việc nhất thường thấy vấn đề trước tiên.",
                "Cuối cùng, dừng lại sau lần vấp ngã đầu tiên là bỏ phí bài học mà lần vấp ngã đó vừa mang lại.",
                "Một nguyên tắc hữu ích là chấp nhận lần thử đầu chưa hoàn hảo và lên kế hoạch cho lần thứ hai từ trước.",
            ],
        },
        Section {
            heading: "Kế hoạch đơn giản cho tháng đầu tiên",
            lines: &[
                "Tuần thứ nhất, xác định mục tiêu và một thước đo cho biết cách làm có hiệu quả hay không.",
                "Tuần thứ hai, thực hiện thay đổi nhỏ đầu tiên quanh {k1} và ghi lại những gì bạn nhận thấy.",
                "Tuần thứ ba, mời thêm một người cùng tham gia và xin góp ý thẳng thắn về {k2}.",
                "Tuần thứ tư, xem lại thước đo, giữ thay đổi nếu nó giúp ích và chọn thay đổi tiếp theo.",
                "Dành ra ba mươi phút trong lịch mỗi tuần cho việc xem lại này, và giữ nguyên khoảng thời gian đó.",
                "Đến cuối tháng, bạn sẽ có bằng chứng thay vì phỏng đoán, giúp mọi quyết định sau đó dễ dàng hơn.",
            ],
        },
        Section {
            heading: "Những câu hỏi thường gặp",
            lines: &[
                "Bao lâu thì thấy kết quả? Thường vài tuần cho những dấu hiệu đầu tiên và vài tháng cho thay đổi bền vững.",
                "Có cần ngân sách không? Hiếm khi cần lúc đầu; sự rõ ràng và kiên trì quan trọng hơn tiền bạc nhiều.",
                "Nếu những người xung quanh chưa tin thì sao? Hãy cho họ thấy một kết quả nhỏ trước khi đề nghị cam kết lớn hơn.",
                "Làm sao biết cách làm đang hiệu quả? Hãy nhìn vào thước đo đã chọn ở tuần đầu, không phải cảm giác bận rộn.",
                "Nếu hoàn cảnh thay đổi thì sao? Giữ mục tiêu, điều chỉnh phương pháp và xem lại vào cuối tháng.",
            ],
        },
    ],
    conclusion_heading: "Điều cần ghi nhớ",
    conclusion: &[
        "Câu hỏi “{topic}” có một câu trả lời thực tế: xác định thế nào là làm tốt, hành động từng bước nhỏ và xem lại một cách trung thực.",
        "Hãy tập trung vào {k1}, xây dựng thói quen quanh {k2} và kiểm tra kết quả qua {k3}.",
        "Chọn một bước trong bài viết này và thực hiện ngay hôm nay; bước đầu tiên đó giúp mọi việc còn lại trở nên khả thi.",
    ],
    facebook_hook: "{topic} — đây là điều nhiều người bỏ lỡ 👇",
    facebook_cta: "Bạn đã có trải nghiệm gì với {k1}? Hãy chia sẻ trong phần bình luận và gửi bài viết này cho người đang cần nhé.",
    x_hook: "{topic}: một chuỗi bài ngắn về điều thật sự hiệu quả 🧵",
    x_cta: "Nếu thấy hữu ích, hãy theo dõi để đọc thêm về {k1} và chia sẻ bài đầu tiên để nhiều người cùng thấy.",
    linkedin_hook: "{topic}.",
    linkedin_takeaways: "Điều tôi sẽ ghi nhớ:",
    linkedin_question: "Đội của bạn xử lý {k1} như thế nào? Tôi rất muốn nghe điều gì đã hiệu quả với bạn.",
};
