//! The Vietnamese lines of the spoken writer (see `mod.rs` for the slots and the order).

use super::{Bank, Section};

pub(crate) static BANK: Bank = Bank {
    hooks: &[
        "Câu hỏi hôm nay là: {topic}.",
        "Hãy cùng nói về một điều mà nhiều người vẫn hiểu sai: {topic}.",
        "Dừng lướt một chút nhé, vì chuyện này thật sự quan trọng: {topic}.",
        "Chắc hẳn bạn đã từng tự hỏi điều này ít nhất một lần: {topic}.",
        "Đây là video mà tôi ước mình được xem sớm hơn: {topic}.",
        "Chủ đề hôm nay nghe thì đơn giản, nhưng không hề đơn giản: {topic}.",
    ],
    promise_short: "Trong khoảng một phút rưỡi tới, bạn sẽ biết vì sao điều này quan trọng, nên bắt đầu từ đâu và một sai lầm cần tránh.",
    promise_normal: "Trong vài phút tới, bạn sẽ biết vì sao điều này quan trọng, những ý chính đằng sau nó, cách bắt đầu ngay tuần này, những sai lầm cần tránh, một kế hoạch cho tháng đầu tiên và lời đáp cho những câu hỏi thường gặp.",
    sections: &[
        Section {
            transition: "Trước hết, vì sao bạn nên quan tâm?",
            lines: &[
                "Phần lớn chúng ta coi việc này là chuyện để sau, và cái ngày để sau ấy thường không bao giờ đến.",
                "Cái giá của việc bỏ qua nó rất nhỏ vào ngày đầu tiên, và chính vì thế mà ta dễ trì hoãn.",
                "Sau vài tháng, những thiếu sót nhỏ ấy cộng dồn lại thành thời gian bị mất, cơ hội bị bỏ lỡ và những áp lực không đáng có.",
                "Làm đúng thì ngược lại: bạn tiết kiệm thời gian, tạo được niềm tin và mỗi bước tiếp theo đều dễ dàng hơn.",
                "Những người làm tốt chuyện này hiếm khi giỏi hơn ai; họ chỉ quyết định sớm hơn thế nào là làm tốt.",
                "Vì vậy, trước khi thay đổi điều gì, hãy nói trong một câu thành công trông như thế nào đối với bạn.",
            ],
        },
        Section {
            transition: "Tiếp theo là những ý mang phần lớn sức nặng.",
            lines: &[
                "Ở đây, có ba ý làm nên phần lớn sự khác biệt.",
                "Ý thứ nhất là quyết định điều bạn thật sự muốn đạt được, và dành cho ai.",
                "Ý thứ hai là một thói quen đều đặn giúp bạn tiến lên mà không phải trông chờ vào cảm hứng.",
                "Ý thứ ba là kiểm tra kết quả một cách trung thực, để giữ lại điều hiệu quả và bỏ đi điều không hiệu quả.",
                "Không ý nào cần đến công cụ đặc biệt hay một ngân sách lớn.",
                "Khi thiếu một trong ba ý, hai ý còn lại cũng dần mất tác dụng.",
                "Hãy coi chúng là một vòng lặp chứ không phải một danh sách: quyết định, hành động, xem lại, rồi làm lại từ đầu.",
            ],
        },
        Section {
            transition: "Vậy bắt đầu từ đâu?",
            lines: &[
                "Hãy chọn một tình huống trong tuần này mà điều này áp dụng được cho bạn.",
                "Mô tả tình hình hiện tại bằng lời đơn giản, kể cả những điều đang chưa ổn.",
                "Chọn một thay đổi có thể làm trong chưa đầy một giờ, và làm ngay hôm nay thay vì tiếp tục lên kế hoạch.",
                "Hãy nói với những người liên quan bạn đang thay đổi điều gì và vì sao, để họ có thể hỗ trợ bạn.",
                "Ghi lại ngắn gọn những gì đã xảy ra, vì trí nhớ thường dễ dãi với kế hoạch nhưng lại khắt khe với kết quả.",
                "Sau một tuần, so sánh ghi chú đó với câu mô tả thành công của bạn và điều chỉnh một điều.",
                "Lặp lại vòng nhỏ ấy, và một ý tưởng hay sẽ trở thành thói quen mà bạn có thể tin cậy.",
            ],
        },
        Section {
            transition: "Đây là những sai lầm nên tránh.",
            lines: &[
                "Sai lầm lớn nhất là muốn thay đổi mọi thứ cùng lúc, và kết quả thường là chẳng thay đổi được gì.",
                "Một sai lầm khác là sao chép cách làm của người khác mà không xem hoàn cảnh của họ có giống mình hay không.",
                "Một sai lầm khó thấy hơn là đo công sức thay vì đo kết quả; cảm giác thì bận rộn nhưng vấn đề thật lại bị che khuất.",
                "Bỏ qua góp ý rất tốn kém, vì những người ở gần công việc nhất thường thấy vấn đề trước tiên.",
                "Và đừng dừng lại sau lần vấp ngã đầu tiên, vì chính lần vấp ngã ấy đã trả giá cho bài học.",
            ],
        },
        Section {
            transition: "Sau đó là một kế hoạch đơn giản cho tháng đầu tiên.",
            lines: &[
                "Tuần thứ nhất, đặt mục tiêu và chọn một con số cho bạn biết mọi việc có hiệu quả hay không.",
                "Tuần thứ hai, thực hiện thay đổi nhỏ đầu tiên và ghi lại những gì bạn nhận thấy.",
                "Tuần thứ ba, mời thêm một người cùng tham gia và xin họ góp ý thẳng thắn về những gì đã thay đổi.",
                "Tuần thứ tư, xem lại con số, giữ thay đổi nếu nó có ích và chọn thay đổi tiếp theo.",
                "Hãy dành ba mươi phút trong lịch mỗi tuần cho buổi xem lại đó, và giữ trọn khoảng thời gian ấy.",
                "Đến cuối tháng, bạn sẽ có bằng chứng thay vì phỏng đoán, và mọi quyết định sau này đều dễ dàng hơn.",
            ],
        },
        Section {
            transition: "Và cuối cùng, vài câu hỏi mà mọi người hay đặt ra.",
            lines: &[
                "Bao lâu thì thấy kết quả? Thường là vài tuần cho những dấu hiệu đầu tiên, và vài tháng cho một thay đổi bền vững.",
                "Có cần tiền để bắt đầu không? Hiếm khi cần; sự rõ ràng và đều đặn quan trọng hơn ngân sách rất nhiều.",
                "Nếu những người xung quanh chưa tin thì sao? Hãy cho họ thấy một kết quả nhỏ trước khi đề nghị điều gì lớn hơn.",
                "Làm sao biết mình đang đi đúng hướng? Hãy nhìn vào con số bạn chọn từ tuần đầu tiên, chứ không phải cảm giác bận rộn.",
                "Nếu hoàn cảnh thay đổi giữa chừng thì sao? Giữ nguyên mục tiêu, điều chỉnh cách làm, và xem lại vào cuối tháng.",
            ],
        },
    ],
    recaps: &[
        "Quay lại câu hỏi ban đầu: {topic}. Hãy xác định thế nào là làm tốt, hành động từng bước nhỏ và xem lại kết quả một cách trung thực.",
        "Câu trả lời cho chuyện {topic} là: một mục tiêu rõ ràng, mỗi lần một bước nhỏ, và nhìn thẳng vào kết quả.",
        "Nói ngắn gọn về {topic}: rõ ràng về mục tiêu, bắt đầu từ việc nhỏ và giữ lại điều hiệu quả.",
    ],
    calls: &[
        "Hãy thử ngay một bước trong video này hôm nay, và theo dõi kênh để xem thêm những video như thế này.",
        "Lưu video này lại, và chia sẻ cho một người bạn đang cần nó trong tuần này.",
        "Theo dõi kênh để nhận thêm những mẹo thực tế như thế này, và bình luận cho chúng tôi biết bạn sẽ thử điều gì trước.",
        "Nếu video hữu ích, hãy chia sẻ cho bạn bè và theo dõi để không bỏ lỡ video tiếp theo.",
    ],
};
