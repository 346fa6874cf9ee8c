package eval

// More languages for the word classes of the learned component (model v6): Dutch, Polish,
// Turkish, Vietnamese, Ukrainian, Greek, Hindi, Hebrew, Chinese, Japanese, and more Korean,
// Arabic and Russian. Like the lists in injection_classes.go they are general vocabulary written
// from what the words mean — the same eighteen meanings — not collected from any corpus item, and
// every one is as common in benign text as in attacks; what a class is worth is learned from the
// training text, in whatever language it was written, and carries over to these.
//
// An entry may be
//   - a word, matched whole;
//   - a stem ending in "*", matched as the prefix of a longer word (Polish, Turkish, Ukrainian,
//     Greek, Korean inflect or agglutinate: "instrukcj*" is "instrukcje", "instrukcji",
//     "instrukcjom");
//   - two words joined by "_", matched across a single space when one of them is not ASCII
//     (Vietnamese writes "bỏ qua", "mật khẩu" as syllables);
//   - a run of Han or kana characters, matched across the run, whose characters the model reads one
//     by one ("忽略", "パスワード").
//
// Entries are written NFKC-normalised and in lower case, as the detector's text is (a Thai sara am
// is written as nikhahit and sara aa): TestClassWordsAreNormalised holds every one to it.
//
//nolint:misspell // words of other languages, not misspelt English
var intlClassWords = []struct {
	class uint8
	words string
}{
	{wcAI, `asystent* asystenta asystencie asistan* yapay yapay_zeka trợ_lý trí_tuệ ассистент* помічник* модель*
		штучний βοηθός βοηθέ μοντέλο μοντέλα νοημοσύνη सहायक मॉडल एआई עוזר מודל בינה المساعد مساعد الذكاء النموذج
		助手 模型 人工智能 智能体 代理 アシスタント エージェント モデル 어시스턴트* 에이전트* 인공지능* 모델* 챗봇*`},
	{wcOverride, `negeer negeren vergeet vergeten omzeil omzeilen zignoruj* ignoruj* zapomnij* pomiń omiń yoksay* görmezden
		unut* atla bỏ_qua phớt_lờ quên ігноруй* проігноруй* забудь* игнорир* проигнорир* αγνόησε αγνοήστε αγνόησ* ξέχασε
		ξεχάστε παράκαμψε अनदेखा नज़रअंदाज़ भूल उपेक्षा התעלם התעלמו תתעלם שכח שכחו תשכח עקוף تجاهل تجاهلي تجاهلوا انس انسى
		تجاوز 忽略 无视 忽视 忘记 忘掉 绕过 無視 忘れ 무시* 잊어* 잊고 무효*`},
	{wcInstruction, `instructies instructie regels richtlijnen aanwijzingen opdrachten instrukcj* zasad* reguł* polece* wytyczn*
		talimat* kural* yönerge* hướng_dẫn chỉ_dẫn chỉ_thị quy_tắc інструкці* правил* вказівк* инструкци* οδηγίες οδηγία
		οδηγιών κανόνες κανόνα κανόνων निर्देश निर्देशों नियम नियमों आदेश הוראות ההוראות הנחיות ההנחיות כללים הכללים التعليمات
		تعليمات القواعد قواعد الإرشادات التوجيهات الأوامر 指令 指示 规则 規則 提示词 设定 命令 ルール 지시* 지침* 규칙* 명령*`},
	{wcPrior, `vorige eerdere voorgaande bovenstaande oorspronkelijke poprzedni* wcześniejsz* powyższ* wcześniej önceki*
		yukarıdaki trước_đó trước попередн* раніше предыдущ* προηγούμεν* παραπάνω αρχικ* पिछले पिछला पिछली पहले पूर्व ऊपर
		הקודמות הקודמים קודמות הקודם הקודמת לעיל السابقة السابق الأصلية 之前 以前 先前 上述 原来 原始 此前 前面 上記 これまで
		이전* 앞의 위의 기존*`},
	{wcDisclose, `stuur verstuur sturen doorsturen deel delen onthul toon kopieer plak wyślij prześlij przekaż udostępnij
		ujawnij pokaż skopiuj wklej dołącz gönder* ilet* paylaş* göster* kopyala* gửi chia_sẻ tiết_lộ hiển_thị sao_chép
		надішли* надіслати перешли покажи розкрий поділись отправ* перешли* στείλε στείλτε προώθησε μοιράσου αποκάλυψε
		εμφάνισε δείξε αντίγραψε भेजें भेजो भेज भेजना साझा दिखाएं दिखाओ बताएं बताओ प्रकट שלח שלחו תשלח העבר העבירו שתף
		חשוף הצג הדפס העתק أرسل ارسل شارك اكشف اعرض انسخ أرفق 发送 發送 转发 分享 透露 泄露 显示 输出 打印 复制 附上
		告诉 送信 転送 共有 開示 表示 出力 보내* 전송* 공유* 공개* 보여* 출력* 알려*`},
	{wcSecret, `wachtwoord wachtwoorden sleutel sleutels geschiedenis gesprek gesprekken inloggegevens hasł* hasło klucz*
		historia historii historię rozmow* kontakt* şifre* anahtar* geçmiş* konuşma* sohbet* mật_khẩu lịch_sử trò_chuyện
		пароль* ключ* історі* листуван* розмов* контакт* переписк* κωδικ* κλειδ* ιστορικ* συνομιλ* επαφ* पासवर्ड कुंजी टोकन
		इतिहास बातचीत संपर्क गोपनीय סיסמה סיסמאות הסיסמה טוקן היסטוריה ההיסטוריה שיחה השיחה كلمة_المرور مفتاح المفاتيح
		المحادثة محادثة 密码 密碼 密钥 秘钥 令牌 历史 记录 对话 聊天 联系人 通讯录 パスワード 履歴 会話 連絡先 機密 秘密
		비밀번호* 암호* 토큰* 기록* 대화* 연락처*`},
	{wcDestroy, `verwijder verwijderen wis wissen vernietig usuń usunąć skasuj wyłącz zniszcz sil silin* kaldır* xóa
		видали* видалити вимкни удали* διέγραψε διαγράψτε διαγραφή απενεργοποίησε हटाएं हटाओ हटा मिटाएं मिटा डिलीट מחק מחקו
		תמחק השבת احذف امسح عطل 删除 刪除 清除 禁用 削除 消去 無効 삭제* 지우* 비활성화*`},
	{wcMoney, `overmaken betaal betalen rekening overboeking przelew* przelej zapłać pieniądz* aktar* öde* hesab* hesap
		chuyển_khoản thanh_toán tài_khoản переведи* переказ* рахун* μετάφερε μεταφορά πλήρωσε λογαριασμ* ट्रांसफर भुगतान खाता
		खाते पैसे העברה תשלום שלם חשבון כסף حول تحويل ادفع الحساب حساب أموال 转账 轉帳 汇款 付款 支付 账户 帳戶 资金
		送金 振込 口座 支払 송금* 이체* 결제* 계좌*`},
	{wcConceal, `stilletjes heimelijk ongemerkt verberg zonder potajemnie ukryj niezauważ* gizlice sessizce gizle* olmadan
		lặng_lẽ âm_thầm непомітно таємно приховай* κρυφά αθόρυβα απόκρυψε χωρίς चुपचाप गुप्त छिपाएं छिपा बिना בשקט בסתר
		הסתר בלי ללא سرا بصمت خفية أخف دون بدون 悄悄 偷偷 隐藏 隱藏 不要告诉 密かに 몰래 조용히 숨기* 없이`},
	{wcUser, `gebruiker gebruikers klant klanten użytkownik* klient* kullanıcı* müşteri* người_dùng khách_hàng
		користувач* пользовател* клієнт* χρήστ* πελάτ* उपयोगकर्ता यूज़र ग्राहक משתמש המשתמש לקוח المستخدم مستخدم العميل
		用户 用戶 使用者 客户 ユーザー 利用者 사용자* 고객*`},
	{wcAuthority, `beheerder ontwikkelaar ontwikkelaars systeem administrator* programist* deweloper* systemu yönetici*
		geliştirici* sistem* quản_trị hệ_thống адміністратор* розробник* систем* администратор* разработчик*
		διαχειριστ* προγραμματιστ* σύστημα συστήματ* व्यवस्थापक एडमिन डेवलपर सिस्टम מנהל מפתחים המערכת מערכת المسؤول المطور
		النظام مدير 管理员 管理者 开发者 開発者 系统 系統 システム 관리자* 개발자* 시스템*`},
	{wcUrgent, `dringend onmiddellijk meteen verplicht pilne pilnie natychmiast obowiązkow* acil* hemen derhal zorunlu
		khẩn_cấp lập_tức терміново негайно обов'язково срочн* немедленн* επείγον επειγόντως αμέσως υποχρεωτικ* तुरंत फ़ौरन
		अनिवार्य ज़रूरी דחוף מיד חובה فورا عاجل إلزامي يجب 紧急 緊急 立即 立刻 马上 必须 直ちに 긴급* 즉시 반드시 필수*`},
	{wcNewTask, `voortaan nieuwe taak rol teraz odtąd nowe nowa nowy zadani* artık şimdi yeni görev* bây_giờ nhiệm_vụ vai_trò
		тепер нова нові новий нове нову завдан* роль ролі τώρα νέα νέο νέος εργασία ρόλο ρόλος अब नया नई नए कार्य भूमिका עכשיו מעכשיו חדש חדשות משימה
		תפקיד الآن جديدة جديد مهمة المهمة دور 现在 新的 任务 任務 角色 扮演 役割 タスク 今から これから 이제 지금부터 새로운
		작업* 역할* 임무*`},
	{wcExecute, `voer uitvoeren aanroepen commando uruchom wykonaj wywołaj polecenie çalıştır* yürüt* çağır* chạy thực_thi
		thực_hiện виконай* запусти* виклич* выполн* запуст* εκτέλεσε εκτελέστε τρέξε κάλεσε चलाएं चलाओ निष्पादित הרץ הפעל
		בצע نفذ شغل استدع 执行 執行 运行 運行 调用 調用 実行 呼び出 실행* 호출*`},
	{wcDiscuss, `voorbeeld aanval aanvallen przykład* atak* örnek* saldırı* ví_dụ tấn_công приклад* атак* παράδειγμα επίθεση
		उदाहरण हमला דוגמה מתקפה התקפה مثال هجوم 例如 示例 例子 攻击 攻撃 例えば 예시* 공격*`},
	{wcSecond, `jij jouw uw twój twoje twoich sen sana senin siz sizin bạn ти тобі твій ваш* εσύ σου σας आप आपका आपके आपकी
		तुम तुम्हारा אתה אתם שלך לך أنت لك عليك 你 您 你的 あなた 당신* 너의 너는`},
	{wcConsent, `goedgekeurd toestemming geautoriseerd toegestaan zatwierdz* zgod* upoważn* dozwolon* onayl* izin* yetkili
		phê_duyệt cho_phép đồng_ý дозвол* схвален* підтвердж* разреш* одобр* εγκεκριμέν* άδεια εξουσιοδοτ* अनुमति स्वीकृत
		मंज़ूरी अधिकृत אושר מאושר הרשאה אישור موافقة وافق مصرح إذن 批准 授权 授權 同意 许可 允许 承認 許可 승인* 허가* 동의*`},
}
