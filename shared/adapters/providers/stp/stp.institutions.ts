/**
 * SPEI participants: a CLABE's first three digits (its bank code) and the five-digit institution code STP's
 * `institucionContraparte` takes (Banxico's list of SPEI participants: commercial banks 40xxx, development
 * banks 37xxx, Banxico 2001, other participants 90xxx). A bank code not in the list is refused before any
 * payout is written.
 */
const COMMERCIAL = [
  '002 012 014 021 030 036 042 044 058 059 060 062 072 106 108 110 112 113 124 127 128 129 130 132',
  '133 136 137 138 140 141 143 145 147 148 150 151 152 154 155 156 157 158 159 160 167',
].join(' ');
const DEVELOPMENT = ['006 009 019 135 166 168'].join(' ');
const OTHER = [
  '600 601 602 605 616 617 620 630 631 634 638 646 652 653 656 659 661 670 677 680 683 684 685 688',
  '689 699 703 706 710 714 715 720 721 722 723 725 727 728 729 730 732 734 738 901 902 903',
].join(' ');

const INSTITUTIONS: ReadonlyMap<string, string> = new Map([
  ['001', '2001'],
  ...COMMERCIAL.split(' ').map((c): [string, string] => [c, `40${c}`]),
  ...DEVELOPMENT.split(' ').map((c): [string, string] => [c, `37${c}`]),
  ...OTHER.split(' ').map((c): [string, string] => [c, `90${c}`]),
]);

/** STP's own institution code: orders are sent from it (institucionOperante) and pay-in CLABEs are under it. */
export const STP_INSTITUTION = '90646';

/** The institution a CLABE belongs to (its first three digits), or null when no SPEI participant has that code. */
export const institutionOfClabe = (clabe: string): string | null => INSTITUTIONS.get(clabe.slice(0, 3)) ?? null;
