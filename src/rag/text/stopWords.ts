// Stop lists, one home: each list keeps the words its users leave out. The function words of the language guess, also the
// builtin embedder's and the compound splitter's stop list, are FUNCTION_WORDS in language.ts.
import type { StemLang } from './stem';

/** General function words (Snowball's stop lists, shortened); never expanded and never part of a key. */
export const STOP_WORDS: Readonly<Record<StemLang, ReadonlySet<string>>> = {
  de: new Set(
    ('aber alle allem allen aller alles als also am an ander andere anderem anderen anderer anderes anders auch auf aus bei beim bin bis ' +
      'bist da damit dann das dass daß dein deine dem den denn der des dessen deshalb die dies diese diesem diesen dieser dieses doch dort du ' +
      'durch ein eine einem einen einer eines einig einige er es etwas euch euer für gegen gewesen hab habe haben hat hatte hatten hier hin ' +
      'hinter ich ihm ihn ihnen ihr ihre im in indem ins ist jede jedem jeden jeder jedes jene jetzt kann kein keine können könnte machen man ' +
      'manche mein meine mich mir mit muss musste müssen nach nicht nichts noch nun nur ob oder ohne sehr sein seine selbst sich sie sind so ' +
      'solche soll sollen sollte sondern sonst über um und uns unser unter viel vom von vor während war waren warum was weil welche welchem ' +
      'welchen welcher welches wenn wer werde werden wie wieder will wir wird wo wollen wurde wurden zu zum zur zwar zwischen wann wieviel ' +
      'viele darf dürfen kann gibt geben gilt etw jdn jdm jds sich ab meinen meinem meiner meines deinen deinem deiner seinen seinem seiner ' +
      'ihrem ihren ihrer unsere unseren euren dann denn wem wen wessen mal schon sowie bzw usw')
      .split(/\s+/),
  ),
  en: new Set(
    ('a about above after again against all am an and any are as at be because been before being below between both but by can could did do ' +
      'does doing down during each few for from further had has have having he her here hers herself him himself his how i if in into is it ' +
      'its itself just me more most my myself no nor not now of off on once only or other our ours out over own same she should so some such ' +
      'than that the their theirs them then there these they this those through to too under until up very was we were what when where which ' +
      'while who whom why will with would you your yours get got many much must may might shall one sb sth someone something')
      .split(/\s+/),
  ),
};

/**
 * Words that carry no content in a question or an answer sentence, German and English together (the answer checks compare
 * the remaining words' stems).
 */
export const CONTENT_STOP_WORDS: ReadonlySet<string> = new Set(
  (
    // English
    'the a an and or not is are was were be been being how what when who whom where which why do does did can could should would ' +
    'must may might shall will i my me you your we our they their them he she his her it its of to in on at for with without by from ' +
    'into onto about between than then this that these those there here if all any some such as so also only just very more most ' +
    'less no yes has have had having each other both either neither per via under over after before up down out off again one ' +
    // German
    'der die das den dem des ein eine einen einem einer eines und oder nicht ist sind war waren wird werden wurde wurden sein ' +
    'wie was wann wer wo welche welcher welches welchen warum muss müssen kann können darf dürfen soll sollen ich mein meine mir ' +
    'mich du dein wir unser ihr sie er es sich bei beim nach vor für mit ohne über unter zwischen vom zum zur im in an am auf aus ' +
    'auch noch nur wenn ob dass daß so als bis seit um durch gegen hat haben habe hatte diese dieser dieses diesem diesen jede ' +
    'jeder jedes kein keine keinen einer man dann denn doch aber sowie bzw etc nr abs satz'
  ).split(/\s+/),
);
