package eval

// Still more languages for the word classes (model v7): Thai, Persian, Urdu, Bengali, Tamil,
// Indonesian and Malay, Swahili, Swedish, Danish and Norwegian, Finnish, Czech, Romanian,
// Hungarian and Tagalog — languages the training text held next to nothing of, where an
// injection scored about 0 because no n-gram had weight and no class fired. Written like the
// lists before them: general vocabulary from the eighteen meanings, as common in a recipe, a
// manual or a security notice as in an attack, in the forms intlClassWords describes. Thai is
// written without spaces, so its entries are runs of characters (isRunRune), like Chinese and
// Japanese ones; an entry of more than thirteen characters cannot match.
//
//nolint:misspell // words of other languages, not misspelt English
var intlClassWords2 = []struct {
	class uint8
	words string
}{
	{wcAI, `ผู้ช่วย โมเดล เอไอ เอเจนต์ บอท دستیار هوش_مصنوعی مدل عامل معاون ماڈل এআই সহকারী মডেল এজেন্ট উதவியாளர்*
		மாதிரி* செயற்கை asisten kecerdasan pembantu msaidizi modeli akili assistenten ai-assistent
		ai-assistenten tekoäly* avustaja ajaa suorita asistent* asistente umělá mi-asszisztens asszisztens modell katulong`},
	{wcOverride, `ไม่ต้องสนใจ เพิกเฉย ละเว้น ลืม ข้าม نادیده فراموش نظرانداز بھول উপেক্ষা ভুলে புறக்கணி* மறந்து*
		abaikan lupakan lupa puuza sahau ignorera glöm strunta bortse ignorer glem ohita unohda ignoruj* zapomeň
		ignoră ignorați uită figyelmen_kívül felejtsd pansinin kalimutan`},
	{wcInstruction, `คําสั่ง กฎ ข้อกําหนด คําแนะนํา دستورالعمل* دستورات دستور قوانین قواعد ہدایات* নির্দেশ* নিয়ম*
		வழிமுறை* விதி* அறிவுறுத்த* instruksi arahan aturan perintah maagizo sheria instruktioner instruktionerna
		regler riktlinjer instruksjoner ohje* sääntö* pokyn* pravidl* instrucțiuni* reguli* utasítás* szabály* tagubilin
		panuntunan`},
	{wcPrior, `ก่อนหน้า เดิม قبلی پیشین قبلاً پچھلی پچھلے আগের পূর্ববর্তী முந்தைய* sebelumnya sebelum ini terdahulu
		awali zilizopita tidigare föregående förra tidligere forrige aiemma* edelli* předchozí* dřívější* anterioare
		anterior* korábbi* előző* naunang dati`},
	{wcDisclose, `ส่ง แชร์ เปิดเผย แสดง คัดลอก بفرست ارسال فرستادن نشان بده افشا بھیج بھیجو দাও পাঠাও পাঠিয়ে শেয়ার দেখাও
		அனுப்பு* பகிர்* காட்டு* kirim kirimkan hantar bagikan tampilkan tunjukkan salin tuma onyesha shiriki skicka
		dela visa kopiera send vis del lähetä* jaa näytä pošli* sdílej ukaž trimite* arată distribuie küld* mutasd
		ipadala ibahagi`},
	{wcSecret, `รหัสผ่าน รหัส ประวัติ การสนทนา ข้อมูลส่วนตัว คีย์ โทเค็น رمز_عبور رمز گذرواژه تاریخچه گفتگو پاس_ورڈ
		گفتگو পাসওয়ার্ড ইতিহাস কথোপকথন ওটিপি கடவுச்சொல்* வரலாறு* உரையாடல்* laluan sandi
		riwayat sejarah percakapan perbualan nenosiri historia mazungumzo lösenord lösenordet historik konversation*
		adgangskode passord historikk salasana* historia keskustelu* heslo* hesla historii konverzac* parola* parolă
		istoric* conversați* jelszó* előzmény* beszélgetés* password kasaysayan`},
	{wcDestroy, `ลบ ทําลาย ปิดการใช้งาน حذف پاک غیرفعال ہٹا মুছে মুছুন நீக்கு* அழி* hapus hapuskan padam futa
		ondoa radera slett slet poista* smaž* odstraň* șterge* elimină töröld töröl* burahin`},
	{wcMoney, `โอนเงิน โอน บัญชี ชําระเงิน เงิน انتقال واریز پرداخت حساب پول رقم টাকা পেমেন্ট অ্যাকাউন্ট பணம்* கணக்கு*
		transfer rekening pembayaran bayar uang akaun wang hamisha pesa akaunti malipo överför betala konto pengar
		overfør betal siirrä maksa tili převeď zaplať účet peníze transferă plătește cont bani utald fizess számla
		pera ilipat`},
	{wcConceal, `แอบ อย่าบอก โดยไม่ บอกใคร بدون مخفیانه بیصدا اطلاع_نده بغیر چپکے জানিও গোপনে ছাড়া சொல்லாதே* இல்லாமல்
		tanpa diam-diam rahsia bila kimya siri utan tyst hemligt uden uten stille salaa ilman tajně bez ascuns
		fără titokban nélkül lihim `},
	{wcUser, `ผู้ใช้ ลูกค้า کاربر مشتری صارف ব্যবহারকারী গ্রাহক பயனர்* வாடிக்கையாளர்* pengguna pelanggan mtumiaji
		mteja användaren användare kund brugeren bruger brukeren bruker käyttäjä* asiakas* uživatel* zákazník*
		utilizator* client* felhasználó* ügyfél* gumagamit`},
	{wcAuthority, `ระบบ ผู้ดูแล ผู้ดูแลระบบ นักพัฒนา سیستم مدیر توسعهدهنده سسٹم منتظم সিস্টেম ডেভেলপার প্রশাসক
		கணினி நிர்வாகி* டெவலப்பர்* sistem pengembang pentadbir mfumo msimamizi msanidi systemet systemmeddelande
		administratör utvecklare systemmelding utvikler järjestelmä* ylläpitäjä* kehittäjä* systém* správce* vývojář*
		sistemului sistem administrator rendszer* fejlesztő* sistema tagapangasiwa`},
	{wcUrgent, `ทันที ด่วน ต้อง فوراً فورا باید ضروری فوری فوراً فوراً এখনই অবিলম্বে জরুরি உடனே* அவசர* segera
		wajib harus haraka lazima omedelbart direkt måste straks omgående heti välittömästi
		ihned okamžitě musíš imediat urgent trebuie azonnal sürgős agad kaagad`},
	{wcNewTask, `ตั้งแต่นี้ บทบาท หน้าที่ โหมด ภารกิจ ใหม่ اکنون نقش وظیفه جدید اب کردار নতুন ভূমিকা এখন_থেকে মোডে
		இப்போது பங்கு* புதிய* sekarang peran tugas baru mulai kini peranan sasa jukumu jipya
		hädanefter roll ny uppgift nå rolle fra_nå nyt rooli tästedes nyní teď
		role úkol acum rol sarcină mostantól szerep feladat ngayon bagong tungkulin`},
	{wcExecute, `เรียกใช้ รัน เรียก เครื่องมือ اجرا ابزار فرمان چلاؤ টুল চালাও কমান্ড கருவி* இயக்கு*
		jalankan gunakan alat panggil zana endesha tumia kör köra verktyg kommando kjør verktøy aja ajaa suorita työkalu* komento*
		spusť nástroj příkaz rulează unealtă comandă futtasd eszköz parancs patakbuhin`},
	{wcDiscuss, `ตัวอย่าง การโจมตี โจมตี บทความ مثال حمله مهاجم آموزش নমুনা উদাহরণ আক্রমণ প্রশিক্ষণ உதாரணம்* தாக்குதல்*
		பயிற்சி* contoh serangan penyerang pelatihan mfano shambulio mafunzo exempel attack angrepp angriparen
		eksempel angreb angrep esimerkki* hyökkäy* koulutus* příklad* útok* školení exemplu atac* instruire
		példa támadás* képzés halimbawa pag-atake`},
	{wcSecond, `คุณ เธอ ท่าน تو شما شمارا آپ تم তুমি আপনি তোমার நீ உங்கள்* நீங்கள் kamu anda engkau awak wewe
		du dig din ditt dina sinä sinun ty tvůj vy tu ești te ön te ikaw mo`},
	{wcConsent, `อนุมัติ อนุญาต ยินยอม تأیید اجازه مجاز منظور اجازت অনুমতি অনুমোদিত அனுமதி* ஒப்புதல்* disetujui menyetujui
		izin dibenarkan idhini ruhusa imeidhinishwa godkänt godkänd tillåtet godkendt tilladt godkjent tillatt
		hyväksy* sallittu schváleno povoleno souhlas aprobat permis autorizat jóváhagy* engedély* aprobado
		pinahintulutan`},
}
